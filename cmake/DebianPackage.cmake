# `cpack -G DEB` in a build folder: a .deb of the libraries, headers and CMake package
# files, and the tools (tensoract-node, -run, -serve, -inspect, -observe), installed under
# /usr. The dependencies are Debian 12's packages, named by hand: dpkg-shlibdeps cannot
# place NVIDIA's CUDA libraries (not Debian's), which a build with the GPU device links.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tensoract)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "tensoract developers <tensoract@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "TensorFlow's runtime rebuilt in C++ as an actor system")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
# Run time: what the libraries and tools load. Build time for a user's project: the headers
# tensoract's own headers include (CAF, protobuf, Eigen) and what find_package(tensoract)
# finds (cmake/tensoractConfig.cmake.in).
set(tensoract_deb_depends
  "libc6, libstdc++6, libgomp1, libcaf-core0.17, libcaf-io0.17, libprotobuf32, libcapnp-0.9.2, libssl3"
  "zlib1g, libpng16-16, libdeflate0, libre2-9, libdnnl2, libgrpc++1.51, libcpp-httplib0.11"
  "libcaf-dev, libprotobuf-dev, protobuf-compiler, libeigen3-dev, libssl-dev, zlib1g-dev, cmake")
string(REPLACE ";" ", " CPACK_DEBIAN_PACKAGE_DEPENDS "${tensoract_deb_depends}")
if(TENSORACT_HAVE_CUDA)
  set(CPACK_PACKAGE_DESCRIPTION
      "Built with the GPU device: it needs NVIDIA's CUDA ${CUDAToolkit_VERSION_MAJOR} libraries (cudart, cuBLAS, cuDNN) on the library path.")
endif()
include(CPack)
