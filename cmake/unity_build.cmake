# SPLINEBENCH_UNITY_BUILD: C++ files compiled in unity batches (CMake's UNITY_BUILD),
# so that the headers most files share (GoogleTest, Eigen, nlohmann-json, CLI11) are
# parsed once per batch. `./run_all.sh test` turns it on for its own build folder; the
# product build compiles file by file. CUDA files stay out of the batches (CMake 4
# would batch them too; kernels in anonymous namespaces are not written for that), as
# do files that say they cannot share a translation unit (SKIP_UNITY_BUILD_INCLUSION).
option(SPLINEBENCH_UNITY_BUILD "Compile C++ files in unity batches (the test build)" OFF)
if(SPLINEBENCH_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
  # GCC warns when a type from an anonymous namespace of an included file is a base
  # (a test fixture's): meant for headers, it fires on every .cpp a batch includes.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
  endif()
endif()

# Marks the CUDA sources of every target under `dir` as outside the unity batches.
function(splinebench_unity_skip_cuda dir)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    get_target_property(source_dir ${target} SOURCE_DIR)
    foreach(source IN LISTS sources)
      if(source MATCHES "\\.cu$")
        cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}")
        set_source_files_properties("${source}" TARGET_DIRECTORY ${target}
                                    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endforeach()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    splinebench_unity_skip_cuda("${subdir}")
  endforeach()
endfunction()
