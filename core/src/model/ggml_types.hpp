#pragma once
// Bits per weight of the ggml block types: block bytes x 8 / weights per
// block, from the static_asserts in ggml-common.h (methodology §1).
namespace caliper {

constexpr double kGgmlQ8_0Bits = 8.5;     // 34 bytes / 32 weights
constexpr double kGgmlQ6_KBits = 6.5625;  // 210 bytes / 256
constexpr double kGgmlQ5_KBits = 5.5;     // 176 bytes / 256
constexpr double kGgmlQ5_0Bits = 5.5;     // 22 bytes / 32
constexpr double kGgmlQ5_1Bits = 6.0;     // 24 bytes / 32
constexpr double kGgmlQ4_KBits = 4.5;     // 144 bytes / 256
constexpr double kGgmlQ4_0Bits = 4.5;     // 18 bytes / 32
constexpr double kGgmlQ4_1Bits = 5.0;     // 20 bytes / 32
constexpr double kGgmlQ3_KBits = 3.4375;  // 110 bytes / 256
constexpr double kGgmlQ2_KBits = 2.625;   // 84 bytes / 256
constexpr double kGgmlF32Bits = 32;       // norms and other 1-D tensors stay F32 in GGUF files

}  // namespace caliper
