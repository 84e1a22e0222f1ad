# Two checks of the model library's layering.
#
# With TARGET: build one probe target of the build tree and expect it to
# compile (EXPECT=pass) or to fail because HEADER is not on its include path
# (EXPECT=fail): any other failure is an error of the check itself.
#
# With MODEL_DIR: no source file at the root of src/model, and no include of a
# model header by a path (`"../budget/budget.h"`, `"budget/budget.h"`), which
# would step around the include paths.
if(TARGET)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(APPEND out "${err}")
  if(EXPECT STREQUAL "pass")
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "${TARGET} should compile but failed:\n${out}")
    endif()
  else()
    if(status EQUAL 0)
      message(FATAL_ERROR "${TARGET} compiled: an include of ${HEADER} from a lower layer was "
                          "not refused")
    endif()
    string(FIND "${out}" "${HEADER}" at)
    string(REGEX MATCH "No such file or directory|file not found" missing "${out}")
    if(at EQUAL -1 OR NOT missing)
      message(FATAL_ERROR "${TARGET} failed, but not because ${HEADER} is out of reach:\n${out}")
    endif()
    message(STATUS "refused as expected: ${HEADER} is not on ${TARGET}'s include path")
  endif()
  return()
endif()

file(GLOB root_sources LIST_DIRECTORIES false ${MODEL_DIR}/*.cpp ${MODEL_DIR}/*.h)
if(root_sources)
  message(FATAL_ERROR "source files at the root of src/model (put them in their layer's "
                      "folder): ${root_sources}")
endif()
file(GLOB_RECURSE sources ${MODEL_DIR}/*.cpp ${MODEL_DIR}/*.h)
foreach(f IN LISTS sources)
  file(STRINGS ${f} lines REGEX "^#include \"[^\"]*/")
  if(lines)
    message(FATAL_ERROR "${f} includes a header by a path (bare names only): ${lines}")
  endif()
endforeach()
