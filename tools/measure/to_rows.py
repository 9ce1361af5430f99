#!/usr/bin/env python3
"""Validation rows from the runs tools/measure/finetune_memory.py and
inference_memory.py recorded.

Each run that fit gives a finetune_memory row (torch.cuda.max_memory_reserved,
GiB); each OOM gives a fits row "OOM"; a run that fit with its reserved peak
above three quarters of the GPU gives a fits row "fits" (runs far below the
limit say nothing about the fit boundary). Smoke runs (two-layer models) are
skipped. Usage: to_rows.py RUNS.jsonl... > rows.jsonl
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = {m["id"]: m for m in json.loads((ROOT / "data" / "models.json").read_text())["models"]}
# Each measuring session is its own source: its GPU, date and software. Runs
# recorded before the setup carried its date belong to the first session on
# that GPU.
SESSIONS = {
    ("NVIDIA H100 80GB HBM3", "2026-11-26"): "h100",
    ("NVIDIA H200", "2026-11-27"): "h200",
    ("NVIDIA H200", "2026-11-28"): "h200b",
}
FIRST_DAY = {"NVIDIA H100 80GB HBM3": "2026-11-26", "NVIDIA H200": "2026-11-27"}


def session(setup):
    """(short name, day) of the session that recorded a run."""
    day = setup.get("date") or FIRST_DAY[setup["gpu"]]
    return SESSIONS[(setup["gpu"], day)], day


def source(setup, what="finetune"):
    # The first word names the session's runs, so validation and the fitter
    # count each session as its own source (left out as one).
    short, day = session(setup)
    return ("validation/measured/{}-{} (Caliper's own runs of tools/measure/{}_memory.py on one {}, "
            "randomly initialised weights, {})".format(short, what, what, setup["gpu"], day))


def describe(run):
    s = run["setup"]
    amp = run.get("precision") == "amp-fp32-master"
    parts = [f"Hugging Face transformers {s['transformers']}, torch {s['torch']}"]
    if run["method"] == "lora":
        parts.append(f"PEFT {s['peft']} LoRA r=16 alpha=32 target_modules=all-linear, bf16 base frozen")
    elif amp:
        parts.append("full fine-tuning in mixed precision: fp32 parameters, torch.autocast bf16, "
                     "fp32 AdamW states (fp32 master weights)")
    else:
        parts.append("full fine-tuning in pure bf16 (bf16-true: bf16 parameters trained in place, "
                     "AdamW states in bf16, no fp32 copy)")
    parts.append("torch.optim.AdamW(fused=True)")
    parts.append("gradient checkpointing on (use_reentrant=False)" if run["gradient_checkpointing"]
                 else "without gradient checkpointing")
    parts.append(f"micro-batch {run['batch']} x seq_len {run['seq_len']} tokens, fixed-length batches, loss over every position "
                 "(model(input_ids, labels)), sdpa attention, one GPU")
    parts.append("figure: torch.cuda.max_memory_reserved over two optimizer steps "
                 f"(live tensors' peak {run.get('peak_allocated_gib')} GiB; CUDA context "
                 f"{s.get('used_before_allocations_gib')} GiB not included)")
    if run.get("tokens_per_s"):
        parts.append(f"second step {run['step_s']} s ({run['tokens_per_s']} tokens/s)")
    return "; ".join(parts)


def inference_rows(run):
    """A generate() run of inference_memory.py: its peak as an inference_memory row."""
    if run["outcome"] != "fits":
        return
    entry = MODELS[run["model"]]
    s = run["setup"]
    gpu = s["gpu"]
    rid = "caliper-{}-{}-generate-b{}-i{}-o{}".format(session(s)[0], run["model"], run["batch"], run["isl"],
                                                     run["osl"])
    extra = ("Hugging Face transformers {} generate(), torch {}; bf16 weights, sdpa attention, the default KV "
             "cache; greedy, {} random prompts of {} tokens, exactly {} new tokens each (no end token); one GPU; "
             "figure: torch.cuda.max_memory_reserved over the generate() call, weights included (live tensors' "
             "peak {} GiB; CUDA context {} GiB not included)").format(
                 s["transformers"], s["torch"], run["batch"], run["isl"], run["osl"], run["peak_allocated_gib"],
                 s.get("used_before_allocations_gib"))
    quote = json.dumps({k: run[k] for k in ("outcome", "peak_reserved_gib", "peak_allocated_gib")})
    yield dict(id=rid + "-memory", kind="inference_memory", model=entry["hf_id"], params_b=entry["params_b"],
               quant="bf16", method="inference", gpu=gpu, gpu_count=1, batch=run["batch"], isl=run["isl"],
               osl=run["osl"], engine="transformers", engine_version=s["transformers"], extra=extra,
               source=source(s, "inference"), measured=True, trust="high", value=run["peak_reserved_gib"],
               unit="GiB", quote=quote)


def rows(run):
    if "isl" in run:
        yield from inference_rows(run)
        return
    if run.get("layers") != MODELS[run["model"]]["layers"] or run["outcome"] not in ("fits", "OOM"):
        return
    entry = MODELS[run["model"]]
    precision = run.get("precision", "bf16")
    gpu = run["setup"]["gpu"]
    rid = "caliper-{}-{}-{}-{}-ck{}-b{}-s{}".format(session(run["setup"])[0], run["model"], run["method"], precision,
                                                      int(run["gradient_checkpointing"]), run["batch"],
                                                      run["seq_len"])
    base = dict(model=entry["hf_id"], params_b=entry["params_b"], quant="bf16" if precision == "bf16" else
                "fp32 weights, bf16 autocast", method=run["method"], gpu=gpu, gpu_count=1,
                batch=run["batch"], seq_len=run["seq_len"], optimizer="AdamW", engine="transformers",
                engine_version=run["setup"]["transformers"], extra=describe(run), source=source(run["setup"]),
                measured=True, trust="high")
    quote = json.dumps({k: run[k] for k in ("outcome", "peak_reserved_gib", "peak_allocated_gib") if k in run})
    if run["outcome"] == "fits":
        yield dict(id=rid + "-memory", kind="finetune_memory", **base, value=run["peak_reserved_gib"],
                   unit="GiB", quote=quote)
    if run["outcome"] == "OOM" or run["peak_reserved_gib"] > 0.75 * run["setup"]["total_gib"]:
        yield dict(id=rid + "-fits", kind="fits", **base, value=run["outcome"], unit=None, quote=quote)


def main():
    for path in sys.argv[1:]:
        for line in open(path):
            for row in rows(json.loads(line)):
                print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
