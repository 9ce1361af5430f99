#!/usr/bin/env python3
"""Peak GPU memory and step time of fine-tuning steps on one GPU.

Real architectures from data/models.json, randomly initialised on the GPU (no
weights are downloaded: memory and speed do not depend on the values). Each
run: a Hugging Face causal-LM in bf16, the loss Hugging Face computes
(model(input_ids, labels=...)), two optimizer steps (the first creates the
optimizer states, the second is the steady-state peak), then
torch.cuda.max_memory_reserved / max_memory_allocated since the model was
built. A CUDA out-of-memory error is recorded as OOM.

  full  the model's own bf16 parameters trained in place by fused AdamW
        (states in bf16, no fp32 master copy: what HF Trainer does with a bf16
        model and no mixed-precision upcast)
  lora  PEFT LoRA r=16, alpha=32, all linear layers, bf16 base frozen,
        fused AdamW over the adapters
  amp   (MEASURE_SET=2) mixed precision: fp32 parameters, the step under
        torch.autocast(bf16), fused AdamW with fp32 states (HF Trainer's
        bf16=True on a model loaded in fp32)
MEASURE_SET=3 runs architectures the first two sets lack (Qwen3 14B, Phi-4,
Gemma 2 9B, Qwen2.5 14B, Qwen3-30B-A3B under LoRA, Phi-3-mini, small Qwen
models at large batches), sized for a 141 GB GPU; MEASURE_SET=4 LoRA of
Qwen3 32B and Mistral Small 24B, mixed precision Llama 3.1 8B, Gemma 3 4B;
MEASURE_SET=5 DeepSeek-V2-Lite, Mixtral 8x7B, Gemma 3 12B/27B, Qwen1.5-MoE, Qwen3 0.6B;
MEASURE_SET=6 GLM-4 9B, Falcon3 7B, SmolLM3 3B, Gemma 3 1B, Granite 3.1 8B.

Writes one JSON line per run to $OUT/runs.jsonl (or argv[1]).
Usage: python3 tools/measure/finetune_memory.py [out.jsonl]
Environment: MEASURE_BUDGET_S (default 300) stops starting new runs after
that many seconds; MEASURE_SMOKE=1 runs only a tiny model through every path.
"""
import gc
import json
import os
import pathlib
import sys
import time
import traceback

import torch
import transformers

ROOT = pathlib.Path(__file__).resolve().parents[2]
GIB = 1024 ** 3

# Catalog id -> transformers config class of that architecture.
ARCH = {
    "llama-3.1-8b": "LlamaConfig",
    "llama-3.2-3b": "LlamaConfig",
    "llama-3.2-1b": "LlamaConfig",
    "qwen2.5-7b": "Qwen2Config",
    "qwen2.5-1.5b": "Qwen2Config",
    "qwen2.5-0.5b": "Qwen2Config",
    "qwen3-8b": "Qwen3Config",
    "qwen3-4b": "Qwen3Config",
    "mistral-7b-v0.3": "MistralConfig",
    "qwen3-14b": "Qwen3Config",
    "qwen2.5-14b": "Qwen2Config",
    "phi-4": "Phi3Config",
    "phi-3-mini": "Phi3Config",
    "gemma-2-9b": "Gemma2Config",
    "qwen3-1.7b": "Qwen3Config",
    "qwen2.5-3b": "Qwen2Config",
    "qwen3-30b-a3b": "Qwen3MoeConfig",
    "qwen3-32b": "Qwen3Config",
    "mistral-small-24b": "MistralConfig",
    "gemma-3-4b": "Gemma3TextConfig",
    "deepseek-v2-lite": "DeepseekV2Config",
    "mixtral-8x7b": "MixtralConfig",
    "gemma-3-12b": "Gemma3TextConfig",
    "gemma-3-27b": "Gemma3TextConfig",
    "qwen1.5-moe-a2.7b": "Qwen2MoeConfig",
    "qwen3-0.6b": "Qwen3Config",
    "glm-4-9b": "GlmConfig",
    "falcon3-7b": "LlamaConfig",
    "smollm3-3b": "SmolLM3Config",
    "gemma-3-1b": "Gemma3TextConfig",
    "granite-3.1-8b-instruct": "GraniteConfig",
}
MODEL_ORDER = list(ARCH)[:9]

# Second set: mixed precision full fine-tuning of the smaller models, and
# long contexts with LoRA and checkpointing at micro-batch 1.
AMP_MODELS = ["llama-3.2-1b", "qwen2.5-0.5b", "qwen2.5-1.5b", "llama-3.2-3b", "qwen3-4b"]
AMP_RUNS = [("full", False, 1, 512), ("full", True, 4, 2048), ("full", False, 2, 2048)]
LONG_MODELS = ["llama-3.1-8b", "qwen2.5-7b", "mistral-7b-v0.3", "llama-3.2-3b", "qwen3-8b"]
LONG_RUNS = [("lora", True, 1, 8192), ("lora", True, 1, 16384), ("lora", True, 1, 32768)]

# Third set (a 141 GB H200): architectures not in the first two sets, each
# sweep straddling the fit boundary of the larger memory; small models at
# large batches; a MoE under LoRA.
SET3_MODELS = ["qwen3-14b", "phi-4", "gemma-2-9b", "qwen2.5-14b", "qwen3-30b-a3b", "phi-3-mini",
               "qwen3-1.7b", "qwen2.5-3b"]
SET3_RUNS = [
    ("full", False, 1, 1024),
    ("full", True, 4, 2048),
    ("full", False, 2, 2048),
    ("lora", False, 2, 2048),
    ("lora", True, 8, 4096),
    ("lora", False, 8, 4096),
]
SET3_SMALL_RUNS = [
    ("full", False, 4, 2048),
    ("full", True, 16, 4096),
    ("full", False, 8, 4096),
    ("lora", False, 8, 4096),
    ("lora", True, 16, 8192),
]
SET3_MOE_RUNS = [("lora", False, 1, 2048), ("lora", True, 8, 4096), ("lora", False, 4, 4096)]
# Fourth set (the same H200): LoRA of 24-32B models at the fit boundary,
# mixed precision full fine-tuning of an 8B model, Gemma 3's text model.
SET4_PLAN = [
    ("qwen3-32b", [("lora", False, 1, 2048), ("lora", True, 4, 4096), ("lora", False, 2, 4096),
                   ("lora", True, 16, 4096)], False),
    ("mistral-small-24b", [("lora", False, 1, 2048), ("lora", True, 4, 4096), ("lora", False, 4, 4096),
                           ("lora", True, 16, 4096)], False),
    ("llama-3.1-8b", [("full", False, 1, 1024), ("full", True, 4, 2048), ("full", False, 2, 2048)], True),
    ("gemma-3-4b", SET3_SMALL_RUNS, False),
]
# Fifth set (an H200): architectures the first four lack, each straddling the
# fit boundary: MLA with fine-grained and shared experts (DeepSeek-V2-Lite),
# Mixtral's eight large experts and Qwen1.5-MoE's shared expert, Gemma 3's
# larger text models, a 0.6B model whose logits dominate.
SET5_PLAN = [
    ("deepseek-v2-lite", [("lora", False, 1, 2048), ("lora", True, 8, 4096), ("lora", False, 4, 4096),
                          ("lora", True, 32, 4096)], False),
    ("mixtral-8x7b", [("lora", True, 2, 4096), ("lora", False, 1, 2048), ("lora", True, 8, 4096)], False),
    ("gemma-3-12b", [("full", True, 1, 2048), ("full", False, 1, 1024), ("full", True, 4, 4096),
                     ("lora", False, 2, 2048), ("lora", True, 8, 4096)], False),
    ("qwen1.5-moe-a2.7b", [("full", True, 1, 2048), ("full", False, 1, 1024), ("full", True, 4, 4096),
                           ("lora", False, 2, 4096), ("lora", True, 16, 4096)], False),
    ("gemma-3-27b", [("lora", False, 1, 2048), ("lora", True, 4, 4096), ("lora", True, 16, 4096)], False),
    ("qwen3-0.6b", [("full", False, 4, 2048), ("full", True, 16, 4096), ("full", False, 8, 4096),
                    ("lora", True, 32, 8192)], False),
]

# Sixth set (an H200): dense architectures the others lack: GLM-4's two KV
# heads, Falcon3's 256-wide heads, SmolLM3, Gemma 3 1B (a 262k vocabulary on
# a 1B model), Granite 3.1.
SET6_PLAN = [
    ("glm-4-9b", [("full", True, 2, 2048), ("full", False, 1, 1024), ("lora", False, 2, 4096),
                  ("lora", True, 16, 4096)], False),
    ("falcon3-7b", [("full", False, 2, 2048), ("full", True, 8, 4096), ("lora", False, 4, 4096)], False),
    ("smollm3-3b", [("full", False, 4, 4096), ("full", True, 16, 8192), ("lora", False, 8, 4096)], False),
    ("gemma-3-1b", [("full", False, 8, 4096), ("full", True, 32, 4096), ("lora", True, 32, 8192)], False),
    ("granite-3.1-8b-instruct", [("full", True, 4, 4096), ("lora", False, 4, 4096)], False),
]

# (method, gradient checkpointing, micro-batch, sequence length), most
# informative first: each model's runs straddle its fit boundary on 80 GB.
RUNS = [
    ("full", False, 1, 512),
    ("full", True, 4, 2048),
    ("full", False, 2, 2048),
    ("full", True, 8, 4096),
    ("lora", False, 1, 1024),
    ("lora", False, 4, 2048),
    ("lora", True, 4, 2048),
    ("lora", True, 8, 4096),
    ("lora", False, 8, 4096),
]


def catalog_entry(model_id):
    models = json.loads((ROOT / "data" / "models.json").read_text())["models"]
    return next(m for m in models if m["id"] == model_id)


def hf_config(entry, arch, layers=None):
    cls = getattr(transformers, arch)
    kwargs = dict(
        vocab_size=entry["vocab_size"],
        hidden_size=entry["hidden_size"],
        intermediate_size=entry["intermediate_size"],
        num_hidden_layers=layers or entry["layers"],
        num_attention_heads=entry["heads"],
        num_key_value_heads=entry["kv_heads"],
        head_dim=entry["head_dim"],
        tie_word_embeddings=bool(entry["tied_embeddings"]),
        max_position_embeddings=min(int(entry.get("max_context") or 32768), 131072),
        attention_dropout=0.0,
        use_cache=False,
    )
    if arch == "MistralConfig":
        kwargs["sliding_window"] = None
    if arch == "Phi3Config":
        kwargs["sliding_window"] = None
        kwargs["pad_token_id"] = None
    if arch == "Gemma3TextConfig":
        kwargs["sliding_window"] = entry.get("sliding_window") or 1024
        kwargs["query_pre_attn_scalar"] = entry["head_dim"]
    if arch == "Gemma2Config":
        kwargs["sliding_window"] = entry.get("sliding_window") or 4096
        kwargs["query_pre_attn_scalar"] = entry["head_dim"]
    moe = entry.get("moe")
    if arch == "MixtralConfig":
        kwargs.update(num_local_experts=moe["experts"], num_experts_per_tok=moe["experts_per_token"],
                      intermediate_size=moe["expert_intermediate_size"], output_router_logits=False)
    elif arch == "DeepseekV2Config":
        mla = entry["mla"]
        # The config derives head_dim from the MLA dimensions itself.
        del kwargs["head_dim"]
        kwargs.update(n_routed_experts=moe["experts"], n_shared_experts=moe["shared_experts"],
                      num_experts_per_tok=moe["experts_per_token"],
                      moe_intermediate_size=moe["expert_intermediate_size"],
                      first_k_dense_replace=moe["dense_layers"], kv_lora_rank=mla["kv_lora_rank"],
                      q_lora_rank=mla["q_lora_rank"] or None, qk_nope_head_dim=mla["qk_nope_head_dim"],
                      qk_rope_head_dim=mla["qk_rope_head_dim"], v_head_dim=mla["v_head_dim"],
                      topk_method="greedy", n_group=1, topk_group=1)
    elif moe:
        kwargs.update(num_experts=moe["experts"], num_experts_per_tok=moe["experts_per_token"],
                      moe_intermediate_size=moe["expert_intermediate_size"], output_router_logits=False)
        if arch == "Qwen2MoeConfig":
            # One shared expert as wide as the catalog's shared experts together.
            kwargs["shared_expert_intermediate_size"] = moe["shared_experts"] * moe["expert_intermediate_size"]
    return cls(**kwargs)


def build_model(config, dtype=torch.bfloat16):
    with torch.device("cuda"):
        try:
            model = transformers.AutoModelForCausalLM.from_config(
                config, dtype=dtype, attn_implementation="sdpa")
        except TypeError:
            model = transformers.AutoModelForCausalLM.from_config(
                config, torch_dtype=dtype, attn_implementation="sdpa")
    model.to(device="cuda", dtype=dtype)
    model.train()
    return model


def wrap_lora(model):
    import peft
    cfg = peft.LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules="all-linear",
                          task_type="CAUSAL_LM")
    return peft.get_peft_model(model, cfg)


def set_checkpointing(model, on):
    if on:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    else:
        model.gradient_checkpointing_disable()
    model.train()


def free():
    gc.collect()
    torch.cuda.empty_cache()


def one_run(model, vocab, batch, seq, amp=False):
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-5, fused=True)
    seconds = None
    try:
        for step in range(2):
            ids = torch.randint(0, vocab, (batch, seq), device="cuda")
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            seconds = time.perf_counter() - t0
            del loss, ids
    finally:
        for p in params:
            p.grad = None
        optimizer.state.clear()
        del optimizer
    return seconds


def measure_model(model_id, out, deadline, layers=None, runs=RUNS, amp=False):
    entry = catalog_entry(model_id)
    if time.time() > deadline:
        for method, ckpt, batch, seq in runs:
            out(dict(model=model_id, method=method, gradient_checkpointing=ckpt, batch=batch,
                     seq_len=seq, outcome="skipped"))
        return
    free()
    torch.cuda.reset_peak_memory_stats()
    model = build_model(hf_config(entry, ARCH[model_id], layers), torch.float32 if amp else torch.bfloat16)
    n_params = sum(p.numel() for p in model.parameters())
    weights_gib = torch.cuda.memory_allocated() / GIB
    lora = False
    for method, ckpt, batch, seq in runs:
        record = dict(model=model_id, layers=layers or entry["layers"], params=n_params,
                      params_exact=entry.get("params_exact"), method=method,
                      gradient_checkpointing=ckpt, batch=batch, seq_len=seq,
                      precision="amp-fp32-master" if amp else "bf16",
                      weights_allocated_gib=round(weights_gib, 3),
                      attention=getattr(model.config, "_attn_implementation", None))
        if time.time() > deadline:
            record["outcome"] = "skipped"
            out(record)
            continue
        if method == "lora" and not lora:
            model = wrap_lora(model)
            lora = True
            record["trainable_params"] = sum(p.numel() for p in model.parameters() if p.requires_grad)
        oom = False
        error = None
        try:
            set_checkpointing(model, ckpt)
            free()
            torch.cuda.reset_peak_memory_stats()
            seconds = one_run(model, entry["vocab_size"], batch, seq, amp)
        except torch.cuda.OutOfMemoryError:
            oom = True
        except Exception:  # noqa: BLE001 - recorded, the sweep goes on
            error = traceback.format_exc(limit=4)
        if oom or error:
            free()
            record["outcome"] = "OOM" if oom else "error"
            if error:
                record["error"] = error
            record["peak_reserved_gib"] = round(torch.cuda.max_memory_reserved() / GIB, 3)
        else:
            record["outcome"] = "fits"
            record["peak_reserved_gib"] = round(torch.cuda.max_memory_reserved() / GIB, 3)
            record["peak_allocated_gib"] = round(torch.cuda.max_memory_allocated() / GIB, 3)
            record["step_s"] = round(seconds, 4)
            record["tokens_per_s"] = round(batch * seq / seconds, 1)
        out(record)
    del model
    free()


def record_writer(f, setup, start):
    """A function that stamps a run's record with the setup and the time
    since start, prints it and appends it to the open file f."""
    def out(record):
        record["setup"] = setup
        record["t_s"] = round(time.time() - start, 1)
        line = json.dumps(record)
        print(line, flush=True)
        f.write(line + "\n")
        f.flush()
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("OUT", "."), "runs.jsonl")
    budget = float(os.environ.get("MEASURE_BUDGET_S", "300"))
    start = time.time()
    setup = dict(torch=torch.__version__, transformers=transformers.__version__,
                 gpu=torch.cuda.get_device_name(0),
                 total_gib=round(torch.cuda.get_device_properties(0).total_memory / GIB, 3),
                 cuda=torch.version.cuda, date=time.strftime("%Y-%m-%d", time.gmtime()))
    torch.cuda.init()
    free_b, total_b = torch.cuda.mem_get_info()
    # What nvidia-smi shows beyond PyTorch's reserved pool: the CUDA context.
    setup["used_before_allocations_gib"] = round((total_b - free_b) / GIB, 3)
    try:
        import peft
        setup["peft"] = peft.__version__
    except Exception as e:  # noqa: BLE001
        setup["peft"] = "missing: %s" % e
    try:
        import bitsandbytes
        setup["bitsandbytes"] = bitsandbytes.__version__
    except Exception as e:  # noqa: BLE001
        setup["bitsandbytes"] = "missing: %s" % e
    print(json.dumps(setup), flush=True)
    with open(path, "a") as f:
        out = record_writer(f, setup, start)
        # Smoke: every path on a two-layer model, so a broken path stops the sweep in seconds.
        smoke = [("full", False, 1, 128), ("full", True, 1, 128), ("lora", False, 1, 128), ("lora", True, 1, 128)]
        before = sum(1 for _ in open(path))
        measure_model("qwen2.5-0.5b", out, start + budget, layers=2, runs=smoke[:2], amp=True)
        measure_model("qwen2.5-0.5b", out, start + budget, layers=2, runs=smoke)
        lines = [json.loads(l) for l in open(path)][before:]
        if any(r.get("outcome") != "fits" for r in lines):
            print("smoke failed", file=sys.stderr)
            sys.exit(3)
        if os.environ.get("MEASURE_SMOKE"):
            return
        if os.environ.get("MEASURE_SET") == "3":
            plan = [(m, SET3_SMALL_RUNS if m in ("qwen3-1.7b", "qwen2.5-3b", "phi-3-mini") else
                     SET3_MOE_RUNS if m == "qwen3-30b-a3b" else SET3_RUNS, False) for m in SET3_MODELS]
        elif os.environ.get("MEASURE_SET") == "4":
            plan = SET4_PLAN
        elif os.environ.get("MEASURE_SET") == "5":
            plan = SET5_PLAN
        elif os.environ.get("MEASURE_SET") == "6":
            plan = SET6_PLAN
        elif os.environ.get("MEASURE_SET") == "2":
            plan = [(m, AMP_RUNS, True) for m in AMP_MODELS] + [(m, LONG_RUNS, False) for m in LONG_MODELS]
        else:
            plan = [(m, RUNS, False) for m in MODEL_ORDER]
        for model_id, runs, amp in plan:
            try:
                measure_model(model_id, out, start + budget, runs=runs, amp=amp)
            except Exception:  # noqa: BLE001 - one architecture failing leaves the others
                out(dict(model=model_id, outcome="error", error=traceback.format_exc(limit=4)))
                free()


if __name__ == "__main__":
    main()
