# Runs the driver (CMD, a ;-list) and checks a refusal: a non-zero exit, stderr matching
# EXPECT, and no results file at OUT (nothing half-written).
#   cmake -DCMD=... -DEXPECT=... -DOUT=... -P expect_refusal.cmake
file(REMOVE "${OUT}")
execute_process(COMMAND ${CMD} --out "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "exit status 0, expected a refusal; stderr:\n${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
if(EXISTS "${OUT}")
  message(FATAL_ERROR "${OUT} was written despite the refusal")
endif()
message(STATUS "refused as expected: ${err}")
