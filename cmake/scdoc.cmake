# scdoc.cmake - run as `cmake -DSCDOC=... -DIN=... -DOUT=... -P`: one man
# page, scdoc reading IN and writing OUT (scdoc takes no file arguments).
execute_process(COMMAND ${SCDOC} INPUT_FILE ${IN} OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT})
  message(FATAL_ERROR "scdoc failed on ${IN}: ${rc}")
endif()
