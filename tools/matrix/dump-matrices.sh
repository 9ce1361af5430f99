#!/usr/bin/env bash
# Writes the whole-catalog matrix for a set of requests (inference, serving
# engines, training methods, GPU limits, an interconnect) into a folder, one
# JSON file per request, so two engine builds can be compared byte for byte:
#   tools/matrix/dump-matrices.sh build/bin/caliper /tmp/before
#   tools/matrix/dump-matrices.sh build/bin/caliper /tmp/after
#   diff -r /tmp/before /tmp/after
set -euo pipefail
caliper="$1"; out="$2"
mkdir -p "$out"
run() { # name, request
  printf '%s' "$2" | "$caliper" matrix > "$out/$1.json"
}
all='"model":"all","gpu":"all"'
run inference            "{$all,\"task\":\"inference\"}"
run inference-b32-32k    "{$all,\"task\":\"inference\",\"batch\":32,\"prompt_tokens\":32768,\"output_tokens\":512}"
run inference-max1       "{$all,\"task\":\"inference\",\"max_gpus\":1}"
run inference-max64      "{$all,\"task\":\"inference\",\"max_gpus\":64}"
run llamacpp             "{$all,\"task\":\"inference\",\"engine\":\"llama.cpp\"}"
run vllm                 "{$all,\"task\":\"inference\",\"engine\":\"vllm\",\"batch\":8}"
run vllm-max64           "{$all,\"task\":\"inference\",\"engine\":\"vllm\",\"max_gpus\":64}"
run trtllm               "{$all,\"task\":\"inference\",\"engine\":\"tensorrt-llm\",\"batch\":16}"
run sglang-fp8           "{$all,\"task\":\"inference\",\"engine\":\"sglang\",\"weights\":\"fp8\",\"kv_cache\":\"fp8\"}"
run ollama               "{$all,\"task\":\"inference\",\"engine\":\"ollama\"}"
run interconnect         "{$all,\"task\":\"inference\",\"max_gpus\":64,\"interconnect\":{\"inter_node\":\"ethernet-100g\",\"gpus_per_node\":4}}"
run lora-mb1             "{$all,\"task\":\"finetune\",\"method\":\"lora\",\"batch\":1}"
run qlora                "{$all,\"task\":\"finetune\",\"method\":\"qlora\",\"batch\":1}"
run full-ft              "{$all,\"task\":\"finetune\",\"method\":\"full\",\"batch\":1,\"max_gpus\":64}"
run pretrain             "{$all,\"task\":\"pretrain\",\"method\":\"full\",\"batch\":1,\"max_gpus\":64}"
run lora-defaults        "{$all,\"task\":\"finetune\",\"method\":\"lora\"}"
run slo                  "{$all,\"task\":\"inference\",\"engine\":\"vllm\",\"slo\":{\"ttft_s\":2,\"min_user_tokens_per_s\":20}}"
