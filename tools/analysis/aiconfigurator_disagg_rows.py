#!/usr/bin/env python3
"""validation/disaggregated.jsonl from aiconfigurator's measured samples.

Reads aic-core/src/aiconfigurator_core/systems/silicon_sample.csv of
github.com/ai-dynamo/aiconfigurator (commit 095f58a5, the file public-v2.jsonl's
aggregated rows come from) and writes one TTFT and one TPOT row for each
disaggregated sample (mode=disagg) on the GPUs public-v2.jsonl covers (h100_sxm,
h200_sxm, b200_sxm) whose prefill/decode split is recorded.

Usage: aiconfigurator_disagg_rows.py silicon_sample.csv > validation/disaggregated.jsonl
"""
import csv
import json
import sys

COMMIT = "095f58a51c4ca8e61b66ec108d86f223f8d559ce"
SOURCE = ("github.com/ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/systems/silicon_sample.csv "
          f"(commit {COMMIT})")
SYSTEMS = ("h100_sxm", "h200_sxm", "b200_sxm")
ENGINES = {"trtllm": "tensorrt-llm", "sglang": "sglang", "vllm": "vllm"}
# The InferenceX runs (silicon_data_source "db-dump/...; config_id=...") were
# benchmarked with benchmark_serving at --request-rate inf and
# --max-concurrency C over C x rounds prompts, so every user starts at once:
# TensorRT-LLM through Dynamo's performance sweeps (ai-dynamo/dynamo
# components/backends/trtllm/performance_sweeps/scripts/bench.sh:
# num_prompts = concurrency x multi_round; benchmark_disagg.slurm
# MULTI_ROUND default 8), SGLang through srt-slurm's SA-Bench
# (benchmarks/sa_bench.sh: a 2 x C warm-up run, then num_prompts =
# concurrency x 10 in a fresh run).
INFERENCEX_ROUNDS = {"trtllm": 8, "sglang": 10}


def count(text):
    # aiconfigurator writes an empty cell (and vLLM rows 0 for moe_ep) for 1.
    return int(text) if text and int(text) > 0 else 1


def side(row, phase):
    g = {k: count(row[f"{phase}_{k}"]) for k in
         ("num_workers", "tp_size", "pp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size", "batch_size")}
    g["gpus"] = g["tp_size"] * g["pp_size"] * g["attention_dp_size"]
    return g


def main(path):
    seen = set()
    line = 1
    for row in csv.DictReader(open(path, newline="")):
        line += 1
        if row["mode"] != "disagg" or row["system"] not in SYSTEMS or row["id"] in seen:
            continue
        # Without worker counts the split that ran is not recorded.
        if not row["prefill_num_workers"] or not row["decode_num_workers"]:
            continue
        p, d = side(row, "prefill"), side(row, "decode")
        # The MoE degrees must span the same GPUs as the attention ones
        # (moe_tp x moe_ep = tp x attention_dp); rows where they do not state
        # two deployments at once.
        if any(x["moe_tp_size"] * x["moe_ep_size"] != x["tp_size"] * x["attention_dp_size"] for x in (p, d)):
            continue
        parts = row["silicon_data_source"].split("; ")
        info = dict(kv.split("=", 1) for kv in parts if "=" in kv)
        # decode_batch_size is per attention-DP rank of one decode worker:
        # where the concurrency is stated it is their product.
        decoding = d["batch_size"] * d["attention_dp_size"] * d["num_workers"]
        concurrency = int(info.get("silicon_concurrency", decoding))
        if decoding != concurrency:
            continue
        stated = ("silicon_concurrency" if "silicon_concurrency" in info
                  else "not stated; decode batch_size x attention_dp x workers")
        seen.add(row["id"])
        inferencex = row["silicon_data_source"].startswith("db-dump/")
        # aiconfigurator's InferenceX adapter fills prefill batch_size with 1
        # when the record has none ("InferenceX disaggregated prefill batch
        # defaults to 1 unless explicitly overridden":
        # src/aiconfigurator/sdk/config_adapter/inferencex.py, _worker and
        # adapt_inferencex); the deployments' own limits differ (Dynamo's
        # B200 8k/1k configs: prefill max_batch_size 2, 1k/1k: 8), so those
        # rows state none.
        prefill_batch = None if inferencex else p["batch_size"]
        rounds = INFERENCEX_ROUNDS.get(row["backend"]) if inferencex else None
        gpus = p["num_workers"] * p["gpus"] + d["num_workers"] * d["gpus"]
        extra = (f"disaggregated serving (AIC mode=disagg), single GPU type; system={row['system']}; "
                 f"prefill: {p['num_workers']} workers x (tp_size={p['tp_size']}, pp_size={p['pp_size']}, "
                 f"attention_dp_size={p['attention_dp_size']}, moe_tp_size={p['moe_tp_size']}, "
                 f"moe_ep_size={p['moe_ep_size']}, batch_size={p['batch_size']}"
                 f"{' (aiconfigurator InferenceX adapter default, not the deployment' + chr(39) + 's)' if inferencex else ''}); "
                 f"decode: {d['num_workers']} workers x (tp_size={d['tp_size']}, pp_size={d['pp_size']}, "
                 f"attention_dp_size={d['attention_dp_size']}, moe_tp_size={d['moe_tp_size']}, "
                 f"moe_ep_size={d['moe_ep_size']}, batch_size={d['batch_size']} per attention-DP rank); "
                 f"gpu_count = all prefill and decode GPUs; concurrency = {concurrency} over the whole "
                 f"deployment ({stated}; = decode batch_size x attention_dp x workers); "
                 f"precision={row['precision']}, gemm_quant_mode={row['gemm_quant_mode']}, "
                 f"moe_quant_mode={row['moe_quant_mode']}; backend_version column={row['backend_version']}, "
                 f"measured={info.get('measured')}; "
                 f"silicon_data_source={row['silicon_data_source']}; "
                 + (f"benchmark: every user starts at once, {rounds} requests per user; " if rounds else "")
                 + f"source row id={row['id']} (CSV line {line}); statistic (mean/median/pXX) of TTFT/TPOT not "
                 f"stated in the CSV or its loader")
        engine = ENGINES[row["backend"]]
        short = row["model_path"].split("/")[-1].lower().replace(".", "").replace("-", "")
        base = (f"aic-disagg-{row['system']}-{row['backend']}-{short}-{row['isl']}x{row['osl']}-c{concurrency}"
                f"-L{line}")
        for kind, column, suffix in (("serving_ttft_ms", "silicon_ttft_ms", "ttft"),
                                     ("serving_tpot_ms", "silicon_tpot_ms", "tpot")):
            out = {
                "id": f"{base}-{suffix}", "kind": kind, "model": row["model_path"], "params_b": None,
                "quant": row["precision"], "method": "inference", "gpu": row["system"], "gpu_count": gpus,
                "engine": engine, "engine_version": row["backend_version"], "batch": concurrency,
                "isl": int(row["isl"]), "osl": int(row["osl"]), "disaggregated": True,
                "prefill_workers": p["num_workers"], "prefill_tp": p["tp_size"], "prefill_pp": p["pp_size"],
                "prefill_attention_dp": p["attention_dp_size"], "prefill_ep": p["moe_ep_size"],
                **({"prefill_batch": prefill_batch} if prefill_batch else {}),
                "decode_workers": d["num_workers"], "decode_tp": d["tp_size"], "decode_pp": d["pp_size"],
                "decode_attention_dp": d["attention_dp_size"], "decode_ep": d["moe_ep_size"],
                **({"benchmark_rounds": rounds} if rounds else {}),
                "extra": extra, "value": float(row[column]), "unit": "ms", "source": SOURCE,
                "quote": f"{column}={row[column]} (row {row['id']})", "measured": True, "trust": "high",
            }
            print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
