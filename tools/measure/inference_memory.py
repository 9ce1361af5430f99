#!/usr/bin/env python3
"""Peak GPU memory and speed of Hugging Face generate() on one GPU.

The architectures and model building of finetune_memory.py (randomly
initialised, bf16, sdpa attention). Each run: model.generate() greedy on a
batch of random prompts of `isl` tokens, exactly `osl` new tokens (no end
token), the default dynamic KV cache; torch.cuda.max_memory_reserved /
max_memory_allocated since the model was built (weights included). Timing:
a generate() of one new token (the prompt's prefill) and one of `osl` tokens;
decode tokens/s per sequence = (osl - 1) / (t_osl - t_1). A CUDA
out-of-memory error is recorded as OOM.

Writes one JSON line per run to argv[1] (or $OUT/inference-runs.jsonl).
Environment: MEASURE_BUDGET_S (default 240) stops starting new runs after
that many seconds; MEASURE_MODELS (comma-separated catalog ids) replaces the
model list.
"""
import json
import os
import pathlib
import sys
import time
import traceback

import torch
import transformers

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import finetune_memory as fm  # noqa: E402  (shares the model building)

MODELS = ["llama-3.1-8b", "qwen3-14b", "gemma-2-9b", "phi-4", "mistral-small-24b", "qwen3-32b",
          "qwen2.5-7b", "qwen3-30b-a3b"]
# (batch, prompt tokens, new tokens): one user, a batch, a long prompt.
RUNS = [(1, 512, 128), (8, 2048, 128), (32, 4096, 64), (1, 32768, 32)]


def generate(model, vocab, batch, isl, osl):
    ids = torch.randint(0, vocab, (batch, isl), device="cuda")
    mask = torch.ones_like(ids)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.inference_mode():
        model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=osl, min_new_tokens=osl,
                       do_sample=False, pad_token_id=0, eos_token_id=None)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def measure_model(model_id, out, deadline):
    entry = fm.catalog_entry(model_id)
    if time.time() > deadline:
        for batch, isl, osl in RUNS:
            out(dict(model=model_id, batch=batch, isl=isl, osl=osl, outcome="skipped"))
        return
    fm.free()
    config = fm.hf_config(entry, fm.ARCH[model_id])
    config.use_cache = True
    model = fm.build_model(config)
    model.eval()
    weights_gib = torch.cuda.memory_allocated() / fm.GIB
    for batch, isl, osl in RUNS:
        record = dict(model=model_id, layers=entry["layers"], params=sum(p.numel() for p in model.parameters()),
                      batch=batch, isl=isl, osl=osl, precision="bf16", attention=model.config._attn_implementation,
                      weights_allocated_gib=round(weights_gib, 3))
        if time.time() > deadline:
            record["outcome"] = "skipped"
            out(record)
            continue
        try:
            fm.free()
            t_prefill = generate(model, entry["vocab_size"], batch, isl, 1)
            fm.free()
            torch.cuda.reset_peak_memory_stats()
            t_all = generate(model, entry["vocab_size"], batch, isl, osl)
            record.update(outcome="fits", peak_reserved_gib=round(torch.cuda.max_memory_reserved() / fm.GIB, 3),
                          peak_allocated_gib=round(torch.cuda.max_memory_allocated() / fm.GIB, 3),
                          prefill_s=round(t_prefill, 4), generate_s=round(t_all, 4),
                          decode_tokens_per_s_per_seq=round((osl - 1) / max(t_all - t_prefill, 1e-9), 2))
        except torch.cuda.OutOfMemoryError:
            fm.free()
            record.update(outcome="OOM", peak_reserved_gib=round(torch.cuda.max_memory_reserved() / fm.GIB, 3))
        except Exception:  # noqa: BLE001 - recorded, the sweep goes on
            fm.free()
            record.update(outcome="error", error=traceback.format_exc(limit=4))
        out(record)
    del model
    fm.free()


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("OUT", "."), "inference-runs.jsonl")
    budget = float(os.environ.get("MEASURE_BUDGET_S", "240"))
    start = time.time()
    torch.cuda.init()
    free_b, total_b = torch.cuda.mem_get_info()
    setup = dict(torch=torch.__version__, transformers=transformers.__version__,
                 gpu=torch.cuda.get_device_name(0),
                 total_gib=round(torch.cuda.get_device_properties(0).total_memory / fm.GIB, 3),
                 cuda=torch.version.cuda, date=time.strftime("%Y-%m-%d", time.gmtime()), used_before_allocations_gib=round((total_b - free_b) / fm.GIB, 3))
    print(json.dumps(setup), flush=True)
    with open(path, "a") as f:
        out = fm.record_writer(f, setup, start)
        for model_id in os.environ.get("MEASURE_MODELS", ",".join(MODELS)).split(","):
            try:
                measure_model(model_id, out, start + budget)
            except Exception:  # noqa: BLE001 - one architecture failing leaves the others
                out(dict(model=model_id, outcome="error", error=traceback.format_exc(limit=4)))
                fm.free()


if __name__ == "__main__":
    main()
