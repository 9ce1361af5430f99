# data/calibration.json (written by tools/calibrate) built into the engine,
# so the command line, the tests and the WebAssembly module read the same
# calibration without a new loading step.
set(CALIPER_CALIBRATION_JSON_FILE ${PROJECT_SOURCE_DIR}/data/calibration.json)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CALIPER_CALIBRATION_JSON_FILE})
file(READ ${CALIPER_CALIBRATION_JSON_FILE} CALIPER_CALIBRATION_JSON)
file(WRITE ${CMAKE_BINARY_DIR}/generated/embedded_calibration.cpp.tmp
  "// Generated from data/calibration.json by CMake. Do not edit.\n"
  "#include <string_view>\n"
  "namespace caliper {\n"
  "std::string_view embeddedCalibrationJson() { return R\"caliper_json(${CALIPER_CALIBRATION_JSON})caliper_json\"; }\n"
  "}\n")
file(COPY_FILE ${CMAKE_BINARY_DIR}/generated/embedded_calibration.cpp.tmp
     ${CMAKE_BINARY_DIR}/generated/embedded_calibration.cpp ONLY_IF_DIFFERENT)
target_sources(caliper_core PRIVATE ${CMAKE_BINARY_DIR}/generated/embedded_calibration.cpp)
