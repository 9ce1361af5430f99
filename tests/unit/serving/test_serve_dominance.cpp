// The serve answer's list: a deployment that adds GPUs for no gain is left
// out, and the closest llama.cpp deployments carry the users asked.
#include <catch2/catch.hpp>

#include <string>

#include "caliper/api.hpp"
#include "property_scenarios.hpp"
#include "serve_fixture.hpp"

using namespace caliper;
using caliper::test::PropertyJson;
using caliper::test::served;

TEST_CASE("serve leaves out deployments on more GPUs of a kind that are no faster, no sooner and carry no more",
          "[serving][serve]") {
    // gpt-oss-120b for one user on RTX 4090s: one tensor-parallel group of 8
    // is a server; 16 and 32 GPUs run it as pipelines of 8-wide stages, whose
    // hops make a user's tokens no faster and the first token no sooner, for
    // the same one user. Four Macs in a pipeline likewise serve Qwen3-30B-A3B
    // at one Mac's speed (a pipeline runs one stage at a time). Whatever the
    // engine's figures, no listed deployment may be matched or beaten on
    // every count by one on fewer GPUs of the same kind.
    for (const char* request :
         {R"({"model":"gpt-oss-120b","users":1,"gpu":"rtx-4090","slo":{"min_user_tokens_per_s":10}})",
          R"({"model":"qwen3-30b-a3b","users":4,"gpu":"apple-m4-max-40c"})",
          R"({"model":"llama-3.3-70b","users":10,"gpu":"rtx-2080-ti-22gb","max_gpus":4,"weights":"Q4_K_M","engine":"llama.cpp","slo":{"min_user_tokens_per_s":10}})"}) {
        INFO(request);
        const PropertyJson answer = served(request);
        const PropertyJson& list = answer["deployments"];
        REQUIRE(list.size() >= 1);
        for (std::size_t i = 0; i < list.size(); ++i) {
            for (std::size_t j = 0; j < list.size(); ++j) {
                const PropertyJson& fewer = list[j];
                const PropertyJson& more = list[i];
                if (i == j || fewer["gpu_count"].get<int>() >= more["gpu_count"].get<int>()) continue;
                if (fewer["meets_slo"].get<bool>() != more["meets_slo"].get<bool>()) continue;
                const PropertyJson& a = fewer["serving"];
                const PropertyJson& b = more["serving"];
                const bool noGain = a["user_tokens_per_s"].get<double>() >= b["user_tokens_per_s"].get<double>() &&
                                    a["ttft_s"].get<double>() <= b["ttft_s"].get<double>() &&
                                    a["concurrency"].get<double>() >= b["concurrency"].get<double>() &&
                                    a["requests_per_s"].get<double>() >= b["requests_per_s"].get<double>();
                INFO(more["gpu_count"].get<int>() << " GPUs against " << fewer["gpu_count"].get<int>());
                CHECK_FALSE(noGain);
            }
        }
    }
}

TEST_CASE("serve's closest llama.cpp deployments carry the users asked", "[serving][serve]") {
    // Ten users of Llama 3.3 70B Q4_K_M on at most four 2080 Ti 22GB: no
    // layout gives each user 10 tokens/s, so the closest are listed. Each must
    // be judged at the ten users asked (llama-server runs a slot per user,
    // or the slots its cache holds with the rest queued, which it says), not
    // at one user, which would read as ten times the capacity it has.
    const PropertyJson answer = served(
        R"({"model":"llama-3.3-70b","users":10,"gpu":"rtx-2080-ti-22gb","max_gpus":4,"weights":"Q4_K_M","engine":"llama.cpp","slo":{"min_user_tokens_per_s":10}})");
    REQUIRE(answer["deployments"].size() >= 1);
    for (const PropertyJson& d : answer["deployments"]) {
        REQUIRE(d["meets_slo"] == false);
        CHECK(d["serving"]["concurrency"].get<double>() == Approx(10));
        CHECK(d["concurrency_per_replica"].get<double>() * d["replicas"].get<int>() == Approx(10));
        const double slots = d["serving"]["max_concurrency"].get<double>();
        if (slots * d["replicas"].get<int>() < 10) {
            const std::string why = d["why"].dump();
            CHECK(why.find("requests_queue_for_kv_pool") != std::string::npos);
        }
    }
}
