#!/usr/bin/env python3
"""Replays a full fine-tuning step's tensor allocations through a model of
PyTorch's CUDA caching allocator and prints the memory it keeps reserved above
the live tensors' peak, beside Caliper's H100 runs (validation/measured-h100.jsonl,
max_memory_reserved and max_memory_allocated of each run).

The allocator model follows c10/cuda/CUDACachingAllocator.cpp: a request over
1 MiB takes the smallest cached free block that fits (best fit) and splits it
when more than 1 MiB would remain; with none it opens a segment of 20 MiB
(kLargeBuffer) below 10 MiB (kMinLargeAlloc), else of the request rounded up
to 2 MiB (kRoundLarge); a freed block merges with free neighbours in its
segment; requests of 1 MiB or less use the small pool of 2 MiB segments.
When a new segment would not fit the GPU, the cached segments that are not
split are freed and the request retried (the allocator's answer to a failed
cudaMalloc).

The step is Hugging Face's Llama/Qwen decoder trained in bf16 as
tools/measure/finetune_memory.py runs it: two steps of model(ids, labels=ids),
loss.backward(), AdamW(fused=True).step() (its states created in the first
step), zero_grad(set_to_none=True); with gradient checkpointing the forward
keeps each layer's input and backward recomputes one layer at a time. The
loss holds the bf16 logits, their fp32 upcast and the saved fp32 log-softmax
(transformers' ForCausalLMLoss). Per-layer tensors are the unfused modules'
(memory/train_activations.cpp counts the same ones); LoRA, autocast and tied
embeddings' summed gradient are not replayed.

What it shows: with checkpointing, the blocks the first step's loss freed are
the only cached blocks large enough for what follows, so best fit splits them
for tensors that outlive them (the next forward's checkpointed layer inputs,
gradients, optimizer states); the next step's logits then take new segments,
about one more loss working set reserved above the peak (Llama 3.1 8B,
micro-batch 4 x 2,048: 11.3 GiB measured, 11.4 simulated). Without
checkpointing the freed activations come in layer-sized blocks that the same
tensors fit, and the reserve stays near 1-4 GiB as measured.

usage: tools/analysis/caching_allocator_sim.py [validation/measured-h100.jsonl]
"""
import json
import os
import re
import sys

MIB = 1 << 20
GIB = 1 << 30
CUDA_CONTEXT_GIB = 0.514  # stated in every run of validation/measured-h100.jsonl
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def position(segment, block):
    return next(i for i, b in enumerate(segment) if b is block)  # by identity: equal blocks are not the same block


class CachingAllocator:
    def __init__(self, capacity=float("inf")):
        self.capacity = capacity  # bytes cudaMalloc can hand out
        self.out_of_memory = False
        self.segments = []  # each a list of [size, free] blocks in address order
        self.reserved = self.allocated = self.small = 0
        self.peak_reserved = self.peak_allocated = 0

    def malloc(self, size):
        size = (size + 511) // 512 * 512  # kMinBlockSize
        if size <= MIB:
            self.small += size
            self.allocated += size
            self._peaks()
            return ("small", size)
        best = None
        for seg in self.segments:
            for block in seg:
                if block[1] and block[0] >= size and (best is None or block[0] < best[1][0]):
                    best = (seg, block)
        if best is None:
            seg_size = 20 * MIB if size < 10 * MIB else (size + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)
            if self.reserved + seg_size > self.capacity:
                # cudaMalloc fails: free the cached segments that are not split, then retry.
                for whole in [g for g in self.segments if len(g) == 1 and g[0][1]]:
                    self.segments.remove(whole)
                    self.reserved -= whole[0][0]
                if self.reserved + seg_size > self.capacity:
                    self.out_of_memory = True
            seg = [[seg_size, True]]
            self.segments.append(seg)
            self.reserved += seg_size
            best = (seg, seg[0])
        seg, block = best
        if block[0] - size > MIB:
            seg.insert(position(seg, block) + 1, [block[0] - size, True])
            block[0] = size
        block[1] = False
        self.allocated += block[0]
        self._peaks()
        return (seg, block)

    def free(self, handle):
        if handle[0] == "small":
            self.small -= handle[1]
            self.allocated -= handle[1]
            return
        seg, block = handle
        block[1] = True
        self.allocated -= block[0]
        i = position(seg, block)
        if i + 1 < len(seg) and seg[i + 1][1]:
            block[0] += seg.pop(i + 1)[0]
        if i > 0 and seg[i - 1][1]:
            seg[i - 1][0] += seg.pop(i)[0]

    def _peaks(self):
        small_segments = (self.small + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)
        self.peak_reserved = max(self.peak_reserved, self.reserved + small_segments)
        self.peak_allocated = max(self.peak_allocated, self.allocated)


def shape(model):
    return dict(layers=model["layers"], h=model["hidden_size"], q=model["heads"] * model["head_dim"],
                kv=model["kv_heads"] * model["head_dim"], f=model["intermediate_size"], vocab=model["vocab_size"],
                tied=model["tied_embeddings"])


def parameters(m):
    params = [("embed", m["vocab"] * m["h"])]
    for layer in range(m["layers"]):
        for name, n in (("q", m["q"] * m["h"]), ("k", m["kv"] * m["h"]), ("v", m["kv"] * m["h"]), ("o", m["h"] * m["q"]),
                        ("gate", m["f"] * m["h"]), ("up", m["f"] * m["h"]), ("down", m["h"] * m["f"]),
                        ("norm1", m["h"]), ("norm2", m["h"])):
            params.append((f"{layer}.{name}", n))
    params.append(("norm", m["h"]))
    if not m["tied"]:
        params.append(("lm_head", m["vocab"] * m["h"]))
    return params


def layer_forward(a, m, tokens, keep):
    """One decoder layer in bf16: returns its output and, when autograd keeps them, its saved tensors."""
    t, h, f = tokens, m["h"], m["f"]
    saved = [a.malloc(t * h * 4), a.malloc(t * h * 2),  # RMSNorm's fp32 copy, normed input
             a.malloc(t * m["q"] * 2), a.malloc(t * m["kv"] * 2), a.malloc(t * m["kv"] * 2),  # q, k, v
             a.malloc(t * m["q"] * 2), a.malloc(t * m["q"] // 128 * 8)]  # attention output, its log-sum-exp
    o_proj = a.malloc(t * h * 2)
    saved += [a.malloc(t * h * 2), a.malloc(t * h * 4), a.malloc(t * h * 2),  # residual, second norm
              a.malloc(t * f * 2), a.malloc(t * f * 2), a.malloc(t * f * 2), a.malloc(t * f * 2)]  # gate, up, act, product
    down = a.malloc(t * h * 2)
    out = a.malloc(t * h * 2)
    a.free(o_proj)
    a.free(down)
    if not keep:
        for x in saved:
            a.free(x)
        saved = []
    return out, saved


def run(m, batch, seq, checkpointing, capacity=float("inf"), steps=2):
    a = CachingAllocator(capacity)
    params = parameters(m)
    sizes = dict(params)
    for _, n in params:
        a.malloc(n * 2)  # bf16 weights
    states = {}
    tokens, vocab, h = batch * seq, m["vocab"], m["h"]
    for _ in range(steps):
        grads = {}
        x = emb = a.malloc(tokens * h * 2)
        inputs, saved = [], []
        for _ in range(m["layers"]):
            out, s = layer_forward(a, m, tokens, not checkpointing)
            inputs.append(x)
            saved.append(s)
            x = out
        norm32, normed = a.malloc(tokens * h * 4), a.malloc(tokens * h * 2)
        logits = a.malloc(tokens * vocab * 2)
        upcast = a.malloc(tokens * vocab * 4)
        log_softmax = a.malloc(tokens * vocab * 4)
        a.free(upcast)
        a.free(logits)
        # Backward: the loss's gradients, lm_head, then each layer (recomputed with checkpointing).
        g1 = a.malloc(tokens * vocab * 4)
        g2 = a.malloc(tokens * vocab * 4)
        a.free(g1)
        a.free(log_softmax)
        g16 = a.malloc(tokens * vocab * 2)
        a.free(g2)
        grad_in = a.malloc(tokens * h * 2)
        grads["lm_head" if not m["tied"] else "embed"] = a.malloc(vocab * h * 2)
        for t in (g16, normed, norm32, x):
            a.free(t)
        for layer in reversed(range(m["layers"])):
            layer_saved = layer_forward(a, m, tokens, True)[1] if checkpointing else saved[layer]
            for name in ("down", "up", "gate", "o", "v", "k", "q"):
                grads[f"{layer}.{name}"] = a.malloc(sizes[f"{layer}.{name}"] * 2)
            for t in layer_saved:
                a.free(t)
            nxt = a.malloc(tokens * h * 2)
            a.free(grad_in)
            grad_in = nxt
            if layer > 0:
                a.free(inputs[layer])
        if "embed" not in grads:
            grads["embed"] = a.malloc(vocab * h * 2)
        a.free(grad_in)
        a.free(emb)
        if not states:  # torch.optim creates AdamW's two moments in the first step
            for name, n in params:
                if n * 2 > MIB:
                    states[name] = (a.malloc(n * 2), a.malloc(n * 2))
        for g in grads.values():
            a.free(g)
    return a


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "validation", "measured-h100.jsonl")
    with open(os.path.join(ROOT, "data", "models.json")) as f:
        catalog = json.load(f)
    models = {m["id"]: m for m in (catalog["models"] if isinstance(catalog, dict) else catalog)}
    with open(os.path.join(ROOT, "data", "gpus.json")) as f:
        gpus = json.load(f)
    h100 = next(g for g in (gpus["gpus"] if isinstance(gpus, dict) else gpus) if g["id"] == "h100-sxm5-80gb")
    # The H100's memory less the CUDA context the runs state (0.514 GiB).
    capacity = (h100["memory_gib"] - CUDA_CONTEXT_GIB) * GIB
    print(f"{'run':52} {'measured':>9} {'simulated':>9}  (GiB reserved above the allocated peak)")
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            match = re.match(r"caliper-h100-(.*)-full-bf16-ck(\d)-b(\d+)-s(\d+)-memory$", row.get("id", ""))
            if row.get("kind") != "finetune_memory" or not match:
                continue
            allocated = float(re.search(r'peak_allocated_gib"?: ([0-9.]+)', row["quote"]).group(1))
            model_id, ck, batch, seq = match.group(1), match.group(2) == "1", int(match.group(3)), int(match.group(4))
            a = run(shape(models[model_id]), batch, seq, ck, capacity)
            print(f"{row['id'][13:-7]:52} {row['value'] - allocated:9.2f} {(a.peak_reserved - a.peak_allocated) / GIB:9.2f}"
                  + ("  (out of memory in the replay)" if a.out_of_memory else ""))


if __name__ == "__main__":
    main()
