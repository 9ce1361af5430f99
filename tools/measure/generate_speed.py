#!/usr/bin/env python3
"""Peak GPU memory and decode speed of Hugging Face transformers generate().

Real architectures from data/models.json, randomly initialised in bf16 on the
GPU, eager generate() (greedy, the default dynamic KV cache, sdpa attention):
for each batch, a prompt of PROMPT tokens, then NEW tokens forced with
min_new_tokens. Decode tokens/s per sequence = (NEW - 1) / (t(NEW) - t(1)):
the time of generate() with one new token (the prefill) is taken off.

Writes one JSON line per run to argv[1].
"""
import gc
import json
import pathlib
import sys
import time

import torch
import transformers

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from finetune_memory import ARCH, GIB, build_model, catalog_entry, hf_config  # noqa: E402

MODELS = ["qwen2.5-0.5b", "llama-3.2-1b", "llama-3.2-3b", "qwen2.5-7b", "llama-3.1-8b"]
BATCHES = [1, 8, 32]
PROMPT = 512
NEW = 128


def generate_s(model, ids, new):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=new,
                   min_new_tokens=new, do_sample=False, pad_token_id=0)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def main():
    path = sys.argv[1]
    setup = dict(torch=torch.__version__, transformers=transformers.__version__,
                 gpu=torch.cuda.get_device_name(0))
    start = time.time()
    with open(path, "a") as f:
        for model_id in MODELS:
            entry = catalog_entry(model_id)
            model = build_model(hf_config(entry, ARCH[model_id]))
            model.eval()
            model.config.use_cache = True
            weights_gib = torch.cuda.memory_allocated() / GIB
            with torch.no_grad():
                for batch in BATCHES:
                    ids = torch.randint(0, entry["vocab_size"], (batch, PROMPT), device="cuda")
                    generate_s(model, ids, 2)  # warm-up
                    gc.collect()
                    torch.cuda.empty_cache()
                    torch.cuda.reset_peak_memory_stats()
                    t_full = generate_s(model, ids, NEW)
                    peak_reserved = torch.cuda.max_memory_reserved() / GIB
                    peak_allocated = torch.cuda.max_memory_allocated() / GIB
                    t_one = generate_s(model, ids, 1)
                    record = dict(model=model_id, batch=batch, prompt_tokens=PROMPT, new_tokens=NEW,
                                  weights_allocated_gib=round(weights_gib, 3),
                                  peak_reserved_gib=round(peak_reserved, 3),
                                  peak_allocated_gib=round(peak_allocated, 3),
                                  prefill_s=round(t_one, 4), generate_s=round(t_full, 4),
                                  decode_tokens_per_s_per_sequence=round((NEW - 1) / (t_full - t_one), 2),
                                  setup=setup, t_s=round(time.time() - start, 1))
                    line = json.dumps(record)
                    print(line, flush=True)
                    f.write(line + "\n")
                    f.flush()
            del model
            gc.collect()
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
