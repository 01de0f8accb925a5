# completions.cmake - run as `cmake -DVX=... -DDIR=... -P`: the shells'
# completion scripts, each written by the vx just built from the option
# tables it parses with (src/orchestrator/cli/completion.c), into DIR.
foreach(shell bash zsh fish)
  if(shell STREQUAL bash)
    set(file vx)
  elseif(shell STREQUAL zsh)
    set(file _vx)
  else()
    set(file vx.fish)
  endif()
  execute_process(COMMAND ${EMULATOR} ${VX} completion ${shell} OUTPUT_FILE ${DIR}/${file}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${VX} completion ${shell} failed: ${rc}")
  endif()
endforeach()
