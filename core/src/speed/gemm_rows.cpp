// eta(M) = M / (M + M_half) with M_half proportional to the GPU's FLOPs per
// byte of weight (bytes per weight x peak / memory bandwidth; NVIDIA's
// "Matrix Multiplication Background" guide: a GEMM is memory bound while its
// arithmetic intensity is under the GPU's ops:byte ratio). DeepGEMM's FP8
// tables on H800 (README at commit 327ec92: normal GEMMs at M = 64, 128,
// 4096 over six N x K shapes; masked grouped GEMMs at M = 256, 512, 1024
// against the same shapes' M = 4096) fit M_half = 200 at 1 byte per weight,
// 1979 TFLOPS and 3.35 TB/s (mean |log error| 0.11; 150 gives 0.18, 250
// 0.14); the roofline's own bound would be 295.
#include "speed/gemm_rows.hpp"

#include <algorithm>

namespace caliper {

namespace {

constexpr double kGemmHalfM = 200.0;
constexpr double kGemmHalfMFlopsPerByte = 1979.0 / 3.35;  // TFLOPS per TB/s of the fit's H800 at FP8
// K_half of the streaming bandwidth by reduction size: DeepGEMM's normal
// GEMMs at M = 64 and 128 (README at commit 327ec92; the ten rows with
// N >= 4096, so that the tiles fill the SMs) run 2103-2143 GB/s at K = 512,
// 2448-2470 at K = 1536-2048 and 2604-2668 at K = 16384; B x K / (K + K_half)
// fits them at K_half = 100 (mean |log error| 0.046; 0.067 without the K
// term; 66 gives 0.050, 133 0.052).
constexpr double kStreamHalfK = 100.0;

}  // namespace

double gemmHalfM(double rateTflops, double bandwidthGBps, double bytesPerWeight) {
    if (bandwidthGBps <= 0 || rateTflops <= 0) return kGemmHalfM;
    return kGemmHalfM * (bytesPerWeight * rateTflops / (bandwidthGBps / 1000.0)) / kGemmHalfMFlopsPerByte;
}

double gemmStreamEfficiency(double reductionK) {
    const double k = std::max(1.0, reductionK);
    return k / (k + kStreamHalfK);
}

double gemmRowsEfficiency(double rows, double halfM) {
    const double m = std::clamp(rows, 1.0, kReferenceGemmTokens);
    return m / (m + std::max(0.0, halfM));
}

}  // namespace caliper
