#pragma once
// GEMM efficiency by the token dimension M: a GEMM re-reads its whole weight
// matrix however few rows it has, so few rows are bound by memory.
// Shared by the training speed model and the serving step model.

namespace caliper {

// Rows beyond which a GEMM gains nothing measurable (DeepGEMM's contiguous
// grouped GEMMs run 1346 TFLOPS at both 4096 and 8192 rows per group:
// README at commit 327ec92); eta is held at its value here.
constexpr double kReferenceGemmTokens = 4096.0;

// M_half of eta(M) = M / (M + M_half) at the tensor rate the GEMMs run at,
// for weights of bytesPerWeight read at the GPU's memory bandwidth.
double gemmHalfM(double rateTflops, double bandwidthGBps, double bytesPerWeight);

// eta(M) = M / (M + M_half), M clamped to [1, kReferenceGemmTokens].
double gemmRowsEfficiency(double rows, double halfM);

// Share of the streaming bandwidth a few-row (decode-shaped) GEMM reaches
// with reduction size K: eta(K) = K / (K + K_half), each output tile's K
// loop too short to hide its loads when K is small.
double gemmStreamEfficiency(double reductionK);

}  // namespace caliper
