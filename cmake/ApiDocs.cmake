# The API reference: Doxygen over the public headers an application includes to build and
# run graphs (client/ and graph/builder/). `cmake --build build --target api_docs` writes
# build/api_docs/html/index.html; the ctest `api_docs` fails on any Doxygen warning, so a
# public declaration added without its comment is caught (Doxygen reads `///` comments).
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "tensoract: doxygen not found, no api_docs target (apt-get install doxygen)")
  return()
endif()
set(DOXYGEN_PROJECT_NAME "tensoract")
set(DOXYGEN_PROJECT_BRIEF "TensorFlow's runtime as an actor system: the C++ client API")
set(DOXYGEN_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/api_docs)
file(MAKE_DIRECTORY ${DOXYGEN_OUTPUT_DIRECTORY})  # its warnings log goes there
set(DOXYGEN_FILE_PATTERNS *.h *.dox)
set(DOXYGEN_STRIP_FROM_PATH ${PROJECT_SOURCE_DIR})
set(DOXYGEN_STRIP_FROM_INC_PATH ${PROJECT_SOURCE_DIR})
set(DOXYGEN_EXTRACT_ALL NO)
set(DOXYGEN_EXTRACT_PRIVATE NO)
set(DOXYGEN_EXTRACT_STATIC YES)
set(DOXYGEN_HIDE_UNDOC_CLASSES NO)
set(DOXYGEN_WARN_IF_UNDOCUMENTED YES)
set(DOXYGEN_WARN_IF_DOC_ERROR YES)
set(DOXYGEN_WARN_NO_PARAMDOC NO)
set(DOXYGEN_WARN_LOGFILE ${PROJECT_BINARY_DIR}/api_docs/warnings.txt)
set(DOXYGEN_QUIET YES)
set(DOXYGEN_GENERATE_LATEX NO)
set(DOXYGEN_JAVADOC_AUTOBRIEF YES)
set(DOXYGEN_DISTRIBUTE_GROUP_DOC YES)  # one comment over a @{ @} family documents each member
set(DOXYGEN_MARKDOWN_SUPPORT YES)
# The project's macros and internals stay out of the reference.
set(DOXYGEN_EXCLUDE_SYMBOLS "*_internal" "detail" "TENSORACT_*_H_")
set(DOXYGEN_ENABLE_PREPROCESSING YES)
set(DOXYGEN_MACRO_EXPANSION NO)
doxygen_add_docs(api_docs
  ${PROJECT_SOURCE_DIR}/docs/api/mainpage.dox ${PROJECT_SOURCE_DIR}/client ${PROJECT_SOURCE_DIR}/graph/builder
  COMMENT "API reference: build/api_docs/html/index.html")
