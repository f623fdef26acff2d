# The kernel libraries the registry loads on demand (kernels/kernel_libraries.h) are linked by
# nothing, so no target waits for them by its links. Every executable of the tree runs graphs
# that may need them (the tools, the tests, the benchmarks, the examples) and depends on them
# here, except the ones named: the main job's trainer, which never asks for those ops and
# would otherwise wait minutes for them on 2 cores.
function(tensoract_depend_on_kernel_libraries dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE" AND NOT target IN_LIST TENSORACT_WITHOUT_KERNEL_LIBRARIES)
      add_dependencies(${target} ${TENSORACT_ON_DEMAND_KERNEL_LIBRARIES})
    endif()
    # The GPU device, loaded where a driver is (the trainer too: it trains on a GPU).
    if(type STREQUAL "EXECUTABLE" AND TARGET tensoract_kernels_gpu)
      add_dependencies(${target} tensoract_kernels_gpu)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    tensoract_depend_on_kernel_libraries(${subdir})
  endforeach()
endfunction()

set(TENSORACT_WITHOUT_KERNEL_LIBRARIES fashion_mnist)
tensoract_depend_on_kernel_libraries(${PROJECT_SOURCE_DIR})
