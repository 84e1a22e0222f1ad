# Runs PROGRAM ARG; with EXPECT_UB it must stop with a UBSan report of a
# float-to-integer overflow, otherwise it must succeed quietly.
execute_process(COMMAND ${PROGRAM} ${ARG} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(EXPECT_UB)
  if(rc EQUAL 0)
    message(FATAL_ERROR "undefined behaviour passed: ${PROGRAM} ${ARG} exited 0 (printed ${out}); "
                        "the build does not check float-cast-overflow or recovers from it")
  endif()
  if(NOT err MATCHES "runtime error: .*outside the range of representable values")
    message(FATAL_ERROR "no UBSan report for ${ARG} (exit ${rc}): ${err}")
  endif()
  message(STATUS "caught as expected: ${err}")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARG} failed (${rc}): ${err}")
endif()
