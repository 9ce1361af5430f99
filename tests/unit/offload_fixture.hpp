#pragma once
// Checks shared by the training-offload tests: an offloaded plan that fits.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "result_fixture.hpp"

namespace caliper::test {

// The plan fits with `strategy` and `offload` for the reason `why`, no
// optimizer states on the GPUs, and `hostGiB` of host RAM (to 1%).
inline void checkOffloadedFit(const nlohmann::json& r, const char* strategy, const char* offload, const char* why,
                              double hostGiB) {
    CHECK(r["fits"] == true);
    CHECK(r["plan"]["strategy"] == strategy);
    CHECK(r["plan"]["offload"] == offload);
    CHECK(listHasCode(r["plan"]["why"], why));
    CHECK(r["memory"]["optimizer_gib"].get<double>() == 0);
    CHECK(r["memory"]["cpu_offload_gib"].get<double>() == Approx(hostGiB).epsilon(0.01));
}

}  // namespace caliper::test
