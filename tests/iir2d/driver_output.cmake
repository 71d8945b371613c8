# The driver's run folder travels as three files: run.json, results.json, results.csv
# (no cases/, no working folders) unless --case-files is given; stdout has one summary
# line per record. Without a device every record is "skipped", which is enough here.
# Usage: cmake -DBIN=<splinebench-iir2d> -DWORK=<scratch folder> -P driver_output.cmake
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${BIN}" run --plan quick --schemes fixed,flex_tiles --results "${WORK}" --machine ctest
                --repetitions 1 --warmups 0 --no-empty-chains
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "splinebench-iir2d exited ${rc}: ${err}")
endif()
file(GLOB runs LIST_DIRECTORIES true "${WORK}/ctest/*")
list(LENGTH runs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one run folder, found: ${runs}")
endif()
file(GLOB_RECURSE entries LIST_DIRECTORIES true RELATIVE "${runs}" "${runs}/*")
file(GLOB hidden LIST_DIRECTORIES true RELATIVE "${runs}" "${runs}/.*")
list(APPEND entries ${hidden})
list(SORT entries)
if(NOT entries STREQUAL "results.csv;results.json;run.json")
  message(FATAL_ERROR "the run folder holds more than run.json, results.json, results.csv: ${entries}")
endif()
string(REGEX MATCHALL "case (fixed|flex_tiles) [0-9]+x[0-9]+ M=[0-9]+ [a-z_]+: [^\n]*" lines "${out}")
list(LENGTH lines nlines)
file(READ "${runs}/results.json" results)
string(JSON nrec LENGTH "${results}" records)
if(nlines EQUAL 0 OR NOT nlines EQUAL nrec)
  message(FATAL_ERROR "expected one summary line per record (${nrec}), found ${nlines}:\n${out}")
endif()
file(REMOVE_RECURSE "${WORK}")
