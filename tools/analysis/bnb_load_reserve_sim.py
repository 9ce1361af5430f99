#!/usr/bin/env python3
"""Replays bitsandbytes' 4-bit quantization on load through the caching
allocator model of caching_allocator_sim.py and prints what the allocator
keeps reserved above the live tensors once the model is loaded.

ms-swift's benchmark (scripts/benchmark/test_memory_time/run_single.py at
commit cfcb672) reads torch.cuda.max_memory_reserved() after the whole run,
loading included. bitsandbytes 0.41 quantizes each weight as it moves to the
GPU (Params4bit.cuda: `self.data.contiguous().half().cuda(device)`, then
functional.quantize_4bit, which allocates the fp32 absmax per 64-block and the
packed 4-bit tensor, and with double quantization an 8-bit absmax); the fp16
copy and the fp32 absmax are then freed. Weights that stay 16-bit (embedding,
norms, biases, lm_head) are placed as they are. Shapes: Qwen-7B and Qwen-14B
(config.json: hidden 4096/5120, intermediate 22016/27392 split into w1 and w2,
32/40 layers, vocabularies 151,936/152,064).

usage: tools/analysis/bnb_load_reserve_sim.py
"""
from caching_allocator_sim import GIB, CachingAllocator


def load(hidden, ffn, layers, vocab, sort_names):
    a = CachingAllocator()
    live = []
    items = []
    for layer in range(layers):
        for name, n in (("attn.c_attn", 3 * hidden * hidden), ("attn.c_proj", hidden * hidden), ("mlp.w1", ffn * hidden),
                        ("mlp.w2", ffn * hidden), ("mlp.c_proj", hidden * ffn)):
            items.append((f"h.{layer}.{name}", n, True))
        for name, n in (("attn.c_attn.bias", 3 * hidden), ("ln_1", hidden), ("ln_2", hidden)):
            items.append((f"h.{layer}.{name}", n, False))
    items += [("wte", vocab * hidden, False), ("ln_f", hidden, False), ("lm_head", vocab * hidden, False)]
    if sort_names:
        items.sort()
    for _, n, quantized in items:
        if not quantized:
            live.append(a.malloc(n * 2))
            continue
        half = a.malloc(n * 2)
        absmax = a.malloc(n // 64 * 4)
        live.append(a.malloc(n // 2))
        live.append(a.malloc(n // 64))
        a.free(absmax)
        a.free(half)
    return a.reserved / GIB, a.allocated / GIB


if __name__ == "__main__":
    for model, hidden, ffn, layers, vocab in (("Qwen-7B", 4096, 11008, 32, 151936), ("Qwen-14B", 5120, 13696, 40, 152064)):
        for order in (False, True):
            reserved, allocated = load(hidden, ffn, layers, vocab, order)
            print(f"{model:9s} {'name order' if order else 'layer order':11s} reserved {reserved:6.2f} GiB, "
                  f"live {allocated:6.2f} GiB, reserve {reserved - allocated:5.2f} GiB")
