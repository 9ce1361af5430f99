// The catalog's notes (data/gpus.json, data/models.json: each entry's
// `notes`) in Chinese, sentence by sentence: many sentences recur across
// entries (a driver report missing, a family's architecture), so each is
// written once. A note is shown in Chinese where every one of its
// sentences is here (views/detail.js); otherwise as the English original,
// labelled so. The whole catalog's notes in Chinese would not fit the
// single file's 600 KiB: the sentences here are the recurring ones and
// those of the entries the scenario presets and defaults open.
var zh = {
  // Recurring sentences.
  'No driver report in the sources: memory_gib takes the marketed capacity as binary GiB (memory is sold in binary units); the driver shows slightly less.':
    '来源中没有驱动报告：memory_gib 取标称容量并按二进制 GiB 计（显存按二进制单位出售）；驱动显示的略少。',
  'No driver report in the sources: memory_gib takes the marketed capacity as binary GiB; the driver shows slightly less.':
    '来源中没有驱动报告：memory_gib 取标称容量并按二进制 GiB 计；驱动显示的略少。',
  "Tensor rates derived as SMs x boost clock x 1024 FLOP/clock/SM (FP16 accumulate), the per-SM rate that reproduces NVIDIA's whitepaper figures for RTX 3090/4090/5090; FP32-accumulate (bf16/fp16 here) is half of it on GeForce.":
    '张量算力按 SM 数 × 加速频率 × 1024 FLOP/周期/SM（FP16 累加）推算，该每 SM 速率可复现 NVIDIA 白皮书中 RTX 3090/4090/5090 的数值；GeForce 上 FP32 累加（此处的 bf16/fp16）为其一半。',
  'This chip has fewer GPU cores than the measured one, so a machine with it draws at most that.':
    '此芯片的 GPU 核心少于实测的那款，因此搭载它的机器功耗至多为该值。',
  "The LLM keys describe the denoising transformer's attention stack for display (it has no token vocabulary: vocab_size 1); the pipeline's size and figures come from workload_shape.":
    'LLM 字段描述去噪 Transformer 的注意力堆栈，仅供显示（它没有 token 词表：vocab_size 为 1）；流水线的规模和数值来自 workload_shape。',
  'This chip has more GPU cores than the measured one and may draw somewhat more (Apple lists no figure for it).':
    '此芯片的 GPU 核心多于实测的那款，功耗可能略高（Apple 未给出它的数值）。',
  'Qwen2 architecture: biases on the q, k and v projections.': 'Qwen2 架构：q、k、v 投影带偏置。',
  'The config carries sliding_window but use_sliding_window is false (full attention).':
    '配置中有 sliding_window，但 use_sliding_window 为 false（全注意力）。',
  'Apple GPUs up to M4 have no matrix units and run FP16 at the FP32 rate, so tensor fields are null; BF16 hardware support is not documented by Apple (false).':
    'M4 及更早的 Apple GPU 没有矩阵单元，FP16 按 FP32 速率运行，因此张量字段为 null；Apple 未说明 BF16 硬件支持（false）。',
  'Qwen3: per-head q/k RMSNorm, no attention biases, explicit head_dim 128.': 'Qwen3：每头 q/k RMSNorm，注意力无偏置，显式 head_dim 128。',
  '40,960 positions (131,072 with YaRN per the model card).': '40,960 个位置（按模型卡，使用 YaRN 时为 131,072）。',
  "Power stays null: Apple publishes a maximum power draw only for its desktop Macs (Mac Studio, Mac mini, iMac), and the M3 Max shipped only in the MacBook Pro; a notebook's power adapter rating is not a draw.":
    '功耗保持 null：Apple 只公布台式 Mac（Mac Studio、Mac mini、iMac）的最大功耗，而 M3 Max 只用于 MacBook Pro；笔记本电源适配器的额定功率不是实际功耗。',
  'ECC not documented (false).': 'ECC 未见文档说明（false）。',
  'Tied embeddings.': '输入输出嵌入共享权重。',
  'Base config: 131,072 positions; the Instruct config says 32,768 (128K via YaRN).': 'Base 配置：131,072 个位置；Instruct 配置为 32,768（通过 YaRN 达 128K）。',
  'Gemma 3: four RMSNorms and per-head q/k norms per layer, tied embeddings.': 'Gemma 3：每层四个 RMSNorm 和每头 q/k 归一化，嵌入共享权重。',
  'Vision tower (SigLIP-2-style ViT, DeepStack mergers) counted in extra_params from vision_config.':
    '视觉塔（SigLIP-2 式 ViT、DeepStack 融合层）按 vision_config 计入 extra_params。',
  'Hybrid: Gated DeltaNet linear attention on 3 of 4 layers, gated full attention (head_dim 256) on every 4th; KV only on the full layers plus a fixed state per sequence.':
    '混合结构：每 4 层中 3 层为 Gated DeltaNet 线性注意力，每第 4 层为门控全注意力（head_dim 256）；只有全注意力层有 KV，另加每序列固定的状态。',
  'Vision tower in extra_params; 1 MTP layer not counted.': '视觉塔计入 extra_params；1 个 MTP 层不计入。',
  'Qwen2.5 architecture trained on code; 32,768-token config (128K with YaRN).': 'Qwen2.5 架构，以代码训练；配置为 32,768 token（使用 YaRN 时 128K）。',
  'No FP8.': '不支持 FP8。', 'No NVLink.': '没有 NVLink。',
  "Tensor rates derived from the per-SM rates of the RTX PRO 4000 SFF (pro cards are not halved: 1024 FLOP/clock/SM FP16 with FP32 accumulate, twice for FP8/INT8, half for TF32) at the boost clock; the RTX PRO 6000 whitepaper's 503.8 TFLOPS = 188 SMs x 2.617 GHz x 1024 confirms the rate.":
    '张量算力由 RTX PRO 4000 SFF 的每 SM 速率按加速频率推算（专业卡不减半：FP32 累加的 FP16 为 1024 FLOP/周期/SM，FP8/INT8 翻倍，TF32 减半）；RTX PRO 6000 白皮书的 503.8 TFLOPS = 188 SM × 2.617 GHz × 1024 印证了该速率。',
  'Board power and PCIe generation not in the sources (null).': '来源中没有板卡功耗和 PCIe 代数（null）。',
  'Biases on q, k and v as in Qwen2.': '与 Qwen2 相同，q、k、v 带偏置。',
  'Gemma 2: four RMSNorms per layer, GeGLU MLP, tied embeddings (config default), logit soft-capping.':
    'Gemma 2：每层四个 RMSNorm，GeGLU MLP，嵌入共享权重（配置默认），logit 软截断。',
  'July/August 2025 update of Qwen3 (separate Instruct and Thinking checkpoints); 262,144-token context.':
    'Qwen3 的 2025 年 7/8 月更新（Instruct 与 Thinking 检查点分开）；上下文 262,144 token。',
  'Llama layout with head_dim 256, 131,072-token vocabulary.': 'Llama 结构，head_dim 256，词表 131,072 token。',
  'The Instruct release ships FP8 (native_weights); the Base and Reasoning releases are BF16.':
    'Instruct 版本以 FP8 发布（native_weights）；Base 与 Reasoning 版本为 BF16。',
  // The entries the defaults and the presets open: H100 SXM, RTX 4090, Llama 3.1.
  'Datasheet: 989.4 TFLOPS dense BF16/FP16 (1,979 with sparsity), 1,978.9 dense FP8, 3.35 TB/s HBM3, 900 GB/s NVLink 4 (18 links), up to 700 W.':
    '数据手册：稠密 BF16/FP16 989.4 TFLOPS（稀疏 1,979），稠密 FP8 1,978.9，3.35 TB/s HBM3，900 GB/s NVLink 4（18 条链路），最高 700 W。',
  "memory_gib from the driver's 81559 MiB.": 'memory_gib 取自驱动报告的 81559 MiB。',
  'Other on-demand prices in the 2026-09 snapshot: Vast median $1.87, Lambda $4.29 per GPU-hour.':
    '2026-09 快照中的其他按需价格：Vast 中位数 $1.87，Lambda $4.29（每卡时）。',
  'Ada whitepaper Appendix A: FP16/BF16 with FP32 accumulate 165.2 dense (330.4 sparse); FP16 accumulate 330.3 dense; FP8 330.3 with FP32 accumulate (v2.02 correction); INT8 660.6.':
    'Ada 白皮书附录 A：FP32 累加的 FP16/BF16 稠密 165.2（稀疏 330.4）；FP16 累加稠密 330.3；FP32 累加的 FP8 330.3（v2.02 勘误）；INT8 660.6。',
  '128 SMs at 2520 MHz, 1,008 GB/s, 450 W.': '128 个 SM，2520 MHz，1,008 GB/s，450 W。',
  'The 82.6 TFLOPS often quoted is the non-tensor FP32 rate.': '常被引用的 82.6 TFLOPS 是非张量核心的 FP32 算力。',
  "gpus_per_node 8 for the 8-card '4090 servers' common in China.": 'gpus_per_node 取 8，对应国内常见的 8 卡“4090 服务器”。',
  'memory_gib from a 24564 MiB report.': 'memory_gib 取自 24564 MiB 的报告。',
  'The 48 GB 4090s sold in China are unofficial memory mods.': '国内销售的 48 GB 4090 是非官方的显存改装卡。',
  'Same weights layout as Llama 3 8B; 131,072-token context through llama3 RoPE scaling (factor 8 over 8,192).':
    '权重结构与 Llama 3 8B 相同；通过 llama3 RoPE 缩放达到 131,072 token 上下文（在 8,192 的基础上放大 8 倍）。',
  '131,072-token context through llama3 RoPE scaling.': '通过 llama3 RoPE 缩放达到 131,072 token 上下文。'
};
var notes = { zh: zh };
export { notes };
