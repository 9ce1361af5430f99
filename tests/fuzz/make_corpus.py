#!/usr/bin/env python3
"""Writes the fuzz seed corpus (tests/fuzz/corpus/<target>/) from the
project's own inputs: the parity requests, the Hugging Face config fixtures
and small slices of the catalog. Rerun after those change; keep it < 1 MB."""
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/fuzz/corpus"

# Catalog slices: kinds of entry the readers treat differently.
GPU_SLICES = [
    ["h100-sxm5-80gb", "rtx-4090"],               # datacenter NVLink / consumer
    ["mi300x", "ascend-910b", "gaudi3"],          # other vendors, China market
    ["apple-m4-max-40c", "rtx-2080-ti-22gb"],     # unified memory / modded card
    ["h20-96gb", "v100-sxm2-32gb", "tesla-k80"],  # export variant, old generations
]
MODEL_SLICES = [
    ["llama-3.1-8b", "mixtral-8x7b"],             # dense GQA / MoE
    ["deepseek-v3", "gpt-oss-20b"],               # MLA / sliding-window MoE
    ["whisper-large-v3", "t5-3b", "llama-3.2-11b-vision"],  # encoder-decoder, cross-attention
    ["bloom-176b", "falcon-7b", "gemma-3-27b"],   # ALiBi, parallel block, tied embeddings
]

ESTIMATE_PATHS = [
    ("matrix", {"model": ["llama-3.1-8b", "qwen3-30b-a3b"], "gpu": ["rtx-4090", "h100-sxm5-80gb"]}),
    ("matrix", {"model": ["qwen2.5-7b"], "gpu": ["a100-sxm4-80gb", "mi300x"], "task": "finetune",
                "method": "qlora", "max_gpus": 8}),
    ("matrix", {"model": "llama-3.1-70b", "gpu_filter": {"classes": ["consumer"], "min_memory_gib": 20},
                "engine": "llama.cpp", "weights": "Q4_K_M"}),
    ("recommend", {"model": "llama-3.1-70b", "prompt_tokens": 4096, "output_tokens": 512, "batch": 8}),
    ("recommend", {"model": "qwen2.5-14b", "task": "finetune", "method": "lora", "objective": "fastest",
                   "gpu_filter": {"vendors": ["nvidia"]}}),
    ("recommend", {"preset": "sft", "pricing": "purchase", "top": 3}),
    ("inventory", {"inventory": [{"gpu": "rtx-4090", "count": 2}], "model": ["llama-3.1-8b", "qwen2.5-14b"]}),
    ("inventory", {"inventory": [{"gpu": "a100-sxm4-80gb", "count": 8}, {"gpu": "l4", "count": 1}],
                   "model": "deepseek-v2-lite", "seq_len": 4096}),
    ("limits", {"model": "llama-3.1-8b", "gpu": "rtx-4090", "engine": "llama.cpp", "weights": "Q4_K_M"}),
    ("limits", {"model": "qwen2.5-72b", "gpu": "h100-sxm5-80gb", "gpu_count": 4}),
    ("limits", {"model": "mistral-7b-v0.3", "gpu": "rtx-3090", "task": "finetune", "method": "lora"}),
    ("serve", {"model": "llama-3.1-70b", "users": 200, "prompt_tokens": 1024, "output_tokens": 256,
               "slo": {"ttft_s": 2, "min_user_tokens_per_s": 20}, "gpu": ["h100-sxm5-80gb", "rtx-4090", "l40s"]}),
    ("serve", {"model": "qwen2.5-7b", "request_rate_per_s": 5, "engine": "sglang", "slo": {"tpot_ms": 40},
               "serving": {"prefix_cache_hit_rate": 0.5, "speculative": {"method": "eagle", "accepted_tokens_per_step": 2}},
               "gpu": "a100-sxm4-80gb", "max_gpus": 8, "pricing": "purchase", "top": 2}),
]


def fresh(target):
    folder = CORPUS / target
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def dump(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def catalog_slices():
    folder = fresh("catalog")
    gpus = json.loads((ROOT / "data/gpus.json").read_text())
    models = json.loads((ROOT / "data/models.json").read_text())
    by_id = {g["id"]: g for g in gpus["gpus"]}
    for n, ids in enumerate(GPU_SLICES, 1):
        entries = [by_id[i] for i in ids]
        used = {c for e in entries for c in e.get("caveats", [])}
        part = dict(gpus, gpus=entries, caveats=[c for c in gpus["caveats"] if c["id"] in used])
        (folder / f"gpus-{n}.json").write_text(dump(part))
    by_id = {m["id"]: m for m in models["models"]}
    for n, ids in enumerate(MODEL_SLICES, 1):
        (folder / f"models-{n}.json").write_text(dump(dict(models, models=[by_id[i] for i in ids])))


def hf_configs():
    folder = fresh("hf_config")
    for source in sorted((ROOT / "tests/fixtures/hf_configs").glob("*.json")):
        shutil.copy(source, folder / source.name)


def requests():
    folder = fresh("scenario")
    lines = (ROOT / "tests/cases/parity.jsonl").read_text().splitlines()
    for n, line in enumerate(l for l in lines if l.strip()):
        (folder / f"parity-{n + 1:02d}.json").write_text(line)
    folder = fresh("estimate_paths")
    for n, (call, request) in enumerate(ESTIMATE_PATHS, 1):
        (folder / f"{call}-{n:02d}.txt").write_text(call + "\n" + dump(request))


if __name__ == "__main__":
    catalog_slices()
    hf_configs()
    requests()
