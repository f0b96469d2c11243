// The training engines' launch files: torchrun + FSDP2 (launch.sh, fsdp_config.json),
// DeepSpeed (launch.sh, ds_config.json), accelerate (launch.sh, accelerate_config.yaml)
// and torchtune (launch.sh running a built-in recipe with overrides). Each maps the
// scenario's ZeRO stage, precision and batch onto the engine's documented keys; the
// checks and batch line they share are in launchwriting.cpp.
#include "core/engines/launchwriting.h"

#include "core/base/errors.h"
#include "core/base/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace gp::launchwriter {

using namespace detail;
using nlohmann::ordered_json;
using units::bytesToGiB;

namespace {

double largestLayerParams(const ModelArch& m)
{
    double largest = double(m.vocab) * m.hidden;
    for (const auto& l : m.layerLinears())
        largest = std::max(largest, double(l.in) * l.out);
    return largest;
}

} // namespace

// ---------------------------------------------------------------- torchrun + FSDP2

LaunchFiles writeTorchrunFsdp(const LaunchTarget& t, const EngineSpec& spec, const Calibration*)
{
    Training tr = prepareTraining(t, spec);
    const TrainingWorkload& w = tr.w;
    const Hardware& h = tr.h;
    if (w.precision == TrainPrecision::FP8)
        refuse(spec.id, "FSDP's mixed precision policy has no FP8 matmuls (that needs torchao float8 or Transformer Engine "
                        "in your script); use accelerate (mixed_precision fp8) or plan with bf16");
    ordered_json cfg;
    std::vector<std::string> notes;
    const bool fsdp = h.zero >= 2 && h.count > 1;
    if (fsdp) {
        key(spec, "fully_shard");
        key(spec, "fully_shard.reshard_after_forward");
        ordered_json fs;
        fs["reshard_after_forward"] = h.zero == 3;
        key(spec, "fully_shard.mp_policy");
        ordered_json mp = nullptr;
        switch (w.precision) {
        case TrainPrecision::AmpBF16: mp = {{"param_dtype", "bfloat16"}, {"reduce_dtype", "float32"}}; break;
        case TrainPrecision::AmpFP16:
            mp = {{"param_dtype", "float16"}, {"reduce_dtype", "float32"}};
            notes.push_back("fp16: FSDP2 needs a gradient scaler in your script (torch.amp.GradScaler).");
            break;
        case TrainPrecision::BF16:
            mp = {{"param_dtype", "bfloat16"}, {"reduce_dtype", "bfloat16"}};
            notes.push_back("Pure bf16: cast the model to bfloat16 before fully_shard, so no fp32 master copy is kept.");
            break;
        default: break; // fp32 / tf32: no policy
        }
        if (!mp.is_null()) {
            key(spec, "fully_shard.mp_policy.param_dtype");
            key(spec, "fully_shard.mp_policy.reduce_dtype");
        }
        fs["mp_policy"] = mp;
        key(spec, "fully_shard.offload_policy");
        fs["offload_policy"] = nullptr;
        cfg["fully_shard"] = fs;
    }
    const bool zero1 = h.zero == 1 && h.count > 1;
    if (zero1) {
        // ZeRO-1 is DDP with torch.distributed.optim.ZeroRedundancyOptimizer
        // (FSDP has no optimizer-only sharding).
        key(spec, "zero_redundancy_optimizer");
        key(spec, "zero_redundancy_optimizer.optimizer_class");
        key(spec, "zero_redundancy_optimizer.parameters_as_bucket_view");
        key(spec, "zero_redundancy_optimizer.overlap_with_ddp");
        const char* cls = w.optimizer == Optimizer::AdamW       ? "torch.optim.AdamW"
                          : w.optimizer == Optimizer::AdamW8bit ? "bitsandbytes.optim.AdamW8bit"
                                                                : "torch.optim.SGD";
        cfg["zero_redundancy_optimizer"] = {{"optimizer_class", cls}, {"parameters_as_bucket_view", false}, {"overlap_with_ddp", false}};
    }
    if (w.precision == TrainPrecision::TF32)
        notes.push_back("TF32: set torch.backends.cuda.matmul.allow_tf32 = True in your script.");
    ordered_json tj;
    auto put = [&](const char* k, ordered_json v) {
        key(spec, std::string("training.") + k, std::string(), true);
        tj[k] = std::move(v);
    };
    key(spec, "training", std::string(), true);
    put("strategy", fsdp    ? (h.zero == 3 ? "fsdp2_full_shard" : "fsdp2_shard_grad_op")
                    : zero1 ? "ddp_zero_redundancy_optimizer"
                            : (h.count > 1 ? "ddp" : "single_gpu"));
    put("micro_batch_size", w.microBatch);
    put("gradient_accumulation_steps", w.gradAccum);
    put("global_batch_size", tr.globalBatch);
    if (t.scenario.model.isLanguageModel())
        put("seq_len", w.seqLen);
    else
        put("image_size", w.imageSize);
    put("activation_checkpointing", std::string(toString(w.checkpointing)));
    put("optimizer", std::string(toString(w.optimizer)));
    put("precision", std::string(toString(w.precision)));
    if (w.method != TrainMethod::Full) {
        put("lora_rank", w.loraRank);
        put("lora_targets", w.loraTargets);
    }
    if (fsdp) {
        const int shard = h.shardGroup > 0 ? h.shardGroup : h.count;
        put("data_parallel_shard", shard);
        put("data_parallel_replicate", h.count / std::max(1, shard));
    }
    cfg["training"] = tj;
    std::vector<std::string> head = tr.head;
    head.push_back(fsdp ? "FSDP2: fully_shard each transformer block, then the root, with the fully_shard arguments of "
                          "fsdp_config.json (reshard_after_forward " + std::string(h.zero == 3 ? "True: ZeRO-3" : "False: ZeRO-2") + ")."
                  : zero1 ? "ZeRO 1: DistributedDataParallel with torch.distributed.optim.ZeroRedundancyOptimizer (the "
                            "optimizer states sharded over the " + str(h.count) + " GPUs), as in fsdp_config.json."
                  : (h.count > 1 ? "ZeRO 0: plain DistributedDataParallel, no sharding." : "One GPU: no sharding."));
    head.push_back(scriptArgsNote(tr));
    head.push_back("At start torchrun logs the rendezvous and world size " + str(h.count) + "; read the peak memory with "
                   "torch.cuda.max_memory_reserved() (+ the CUDA context) against the prediction above.");
    for (const auto& n : notes)
        head.push_back(n);
    Cmd c(spec, "torchrun");
    if (tr.nodes == 1) {
        c.flag("--standalone").flag("--nnodes", "1").flag("--nproc-per-node", str(tr.perNode));
    } else {
        c.flag("--nnodes", str(tr.nodes)).flag("--nproc-per-node", str(tr.perNode));
        c.flag("--rdzv-backend", "c10d").flag("--rdzv-endpoint", "\"$HEAD_NODE:29500\"").flag("--rdzv-id", "gpuplanner");
        head.push_back("Multi-node: run this line on each of the " + str(tr.nodes) + " hosts with HEAD_NODE set to the first.");
    }
    c.word("train.py").word("fsdp_config.json");
    return trainingFiles(spec, head, c, notes, "fsdp_config.json", cfg.dump(2) + "\n");
}

// ---------------------------------------------------------------- DeepSpeed

LaunchFiles writeDeepspeed(const LaunchTarget& t, const EngineSpec& spec, const Calibration*)
{
    Training tr = prepareTraining(t, spec);
    const TrainingWorkload& w = tr.w;
    const Hardware& h = tr.h;
    if (w.precision == TrainPrecision::FP8)
        refuse(spec.id, "DeepSpeed's config has no FP8 training mode (bf16 / fp16 sections only); use accelerate "
                        "(mixed_precision fp8) or plan with bf16");
    if (w.optimizer == Optimizer::AdamW8bit)
        refuse(spec.id, "DeepSpeed has no 8-bit AdamW among its optimizers (deepspeed/runtime/config.py "
                        "DEEPSPEED_OPTIMIZERS) or in torch.optim; plan with adamw");
    std::vector<std::string> notes;
    ordered_json cfg;
    auto put = [&](const std::string& k, ordered_json v) {
        key(spec, k);
        cfg[k] = std::move(v);
    };
    put("train_batch_size", tr.globalBatch);
    put("train_micro_batch_size_per_gpu", w.microBatch);
    put("gradient_accumulation_steps", w.gradAccum);
    const std::string optType = w.optimizer == Optimizer::AdamW ? "AdamW" : "SGD";
    key(spec, "optimizer.type", optType);
    key(spec, "optimizer.params");
    ordered_json params = ordered_json::object();
    if (w.optimizer == Optimizer::SGDMomentum) {
        notes.push_back("sgd_momentum: give torch.optim.SGD its momentum in optimizer.params (the plan counts one "
                        "momentum buffer per parameter).");
    }
    put("optimizer", ordered_json{{"type", optType}, {"params", params}});
    if (w.precision == TrainPrecision::AmpBF16 || w.precision == TrainPrecision::BF16) {
        key(spec, "bf16.enabled");
        put("bf16", ordered_json{{"enabled", true}});
        if (w.precision == TrainPrecision::BF16)
            notes.push_back("DeepSpeed's bf16 mode keeps fp32 master weights in the optimizer: the plan's pure-bf16 "
                            "optimizer figure is lower than what DeepSpeed will hold.");
    } else if (w.precision == TrainPrecision::AmpFP16) {
        key(spec, "fp16.enabled");
        put("fp16", ordered_json{{"enabled", true}});
    } else if (w.precision == TrainPrecision::TF32) {
        notes.push_back("TF32: DeepSpeed runs fp32; set torch.backends.cuda.matmul.allow_tf32 = True in your script.");
    }
    key(spec, "zero_optimization.stage");
    key(spec, "zero_optimization.overlap_comm");
    key(spec, "zero_optimization.contiguous_gradients");
    put("zero_optimization", ordered_json{{"stage", h.zero}, {"overlap_comm", h.count > 1}, {"contiguous_gradients", true}});
    put("gradient_clipping", 1.0);
    put("steps_per_print", 10);
    // DeepSpeed's own model-state estimate.
    std::vector<std::string> head = tr.head;
    const double P = t.scenario.model.isLanguageModel() ? t.scenario.model.totalParams() : t.scenario.model.vision.params;
    const int gpn = tr.perNode;
    const int nodes = tr.nodes;
    const double total = double(gpn) * nodes;
    char line[160];
    if (h.zero == 2 || h.zero == 3) {
        const bool z3 = h.zero == 3;
        const double largest = t.scenario.model.isLanguageModel() ? largestLayerParams(t.scenario.model) : 0;
        if (z3 && largest <= 0) {
            head.push_back("DeepSpeed's ZeRO-3 estimate needs the largest layer's parameters, which the catalog does not "
                           "give for this vision model.");
        } else {
            const double gpu = z3 ? 4 * largest + std::floor(18 * P / total) : 2 * P + std::floor(18 * P / total);
            const double cpu = z3 ? largest * 4 * gpn * 1.5 : P * 4 * gpn * 1.5;
            head.push_back(std::string("DeepSpeed's model-state estimate, as ") +
                           (z3 ? "deepspeed.runtime.zero.stage3.estimate_zero3_model_states_mem_needs_all_cold(total_params=" +
                                     num(P, 0) + ", largest_layer_params=" + num(largest, 0)
                               : "deepspeed.runtime.zero.stage_1_and_2.estimate_zero2_model_states_mem_needs_all_cold("
                                 "total_params=" + num(P, 0)) +
                           ", num_gpus_per_node=" + str(gpn) + ", num_nodes=" + str(nodes) + ") prints it for this layout "
                           "(no offload; " + (z3 ? "4 x largest layer" : "2 bytes/param") + " + 18 bytes/param / " +
                           num(total, 0) + " GPUs; it counts every parameter as trainable):");
            std::snprintf(line, sizeof line, " %7.2fGB | %6.2fGB | %s", cpu / (1 << 30), gpu / (1 << 30),
                          z3 ? "offload_param=none, offload_optimizer=none, zero_init=1" : "offload_optimizer=none");
            head.push_back("  per CPU  |  per GPU |   Options");
            head.push_back(line);
        }
    } else {
        head.push_back("ZeRO stage " + str(h.zero) + ": DeepSpeed's estimate_zero2/3_model_states_mem_needs cover stages 2 "
                       "and 3 only; compare the prediction above with the engine's \"MA ... Max_MA ... CA\" memory lines.");
    }
    head.push_back(scriptArgsNote(tr));
    head.push_back("ds_config.json cannot hold comments (JSON); this script's header is its header.");
    for (const auto& n : notes)
        head.push_back(n);
    Cmd c(spec, "deepspeed");
    if (nodes > 1) {
        c.flag("--hostfile", "hostfile").flag("--num_nodes", str(nodes));
        head.push_back("Multi-node: list the " + str(nodes) + " hosts in ./hostfile (\"host slots=" + str(gpn) + "\").");
    }
    c.flag("--num_gpus", str(gpn));
    c.word("train.py");
    c.flag("--deepspeed").flag("--deepspeed_config", "ds_config.json");
    return trainingFiles(spec, head, c, notes, "ds_config.json", cfg.dump(2) + "\n");
}

// ---------------------------------------------------------------- accelerate

LaunchFiles writeAccelerate(const LaunchTarget& t, const EngineSpec& spec, const Calibration*)
{
    Training tr = prepareTraining(t, spec);
    const TrainingWorkload& w = tr.w;
    const Hardware& h = tr.h;
    std::vector<std::string> notes;
    std::string yaml;
    auto put = [&](const std::string& k, const std::string& v, int indent = 0) {
        key(spec, k, v);
        const std::string leaf = k.substr(k.rfind('.') == std::string::npos ? 0 : k.rfind('.') + 1);
        yaml += std::string(indent, ' ') + leaf + ": " + v + "\n";
    };
    std::string distributed = h.count == 1 ? "NO" : "MULTI_GPU";
    if (h.count > 1 && (h.zero == 1 || h.zero == 2))
        distributed = "DEEPSPEED";
    else if (h.count > 1 && h.zero == 3)
        distributed = "FSDP";
    std::string mixed = "no";
    switch (w.precision) {
    case TrainPrecision::AmpBF16: mixed = "bf16"; break;
    case TrainPrecision::AmpFP16: mixed = "fp16"; break;
    case TrainPrecision::FP8: mixed = "fp8"; notes.push_back("fp8: accelerate runs FP8 through Transformer Engine, MS-AMP or torchao; install one (fp8_config picks the backend)."); break;
    case TrainPrecision::BF16: notes.push_back("Pure bf16: load the model in torch.bfloat16; mixed_precision stays \"no\" (no autocast, no fp32 master)."); break;
    case TrainPrecision::TF32: notes.push_back("TF32: set torch.backends.cuda.matmul.allow_tf32 = True in your script."); break;
    default: break;
    }
    put("compute_environment", "LOCAL_MACHINE");
    put("debug", "false");
    put("distributed_type", distributed);
    put("downcast_bf16", "'no'");
    if (distributed == "DEEPSPEED") {
        key(spec, "deepspeed_config");
        yaml += "deepspeed_config:\n";
        put("deepspeed_config.gradient_accumulation_steps", str(w.gradAccum), 2);
        put("deepspeed_config.offload_optimizer_device", "none", 2);
        put("deepspeed_config.offload_param_device", "none", 2);
        put("deepspeed_config.zero3_init_flag", "false", 2);
        put("deepspeed_config.zero_stage", str(h.zero), 2);
    } else if (distributed == "FSDP") {
        key(spec, "fsdp_config");
        yaml += "fsdp_config:\n";
        put("fsdp_config.fsdp_version", "2", 2);
        put("fsdp_config.fsdp_reshard_after_forward", "true", 2);
        put("fsdp_config.fsdp_auto_wrap_policy", "TRANSFORMER_BASED_WRAP", 2);
        put("fsdp_config.fsdp_activation_checkpointing", w.checkpointing == Checkpointing::Full ? "true" : "false", 2);
        put("fsdp_config.fsdp_offload_params", "false", 2);
        put("fsdp_config.fsdp_state_dict_type", "SHARDED_STATE_DICT", 2);
        put("fsdp_config.fsdp_cpu_ram_efficient_loading", "true", 2);
        if (h.shardGroup > 0)
            notes.push_back("HSDP (shard groups of " + str(h.shardGroup) + "): set parallelism_config (dp_shard_size " +
                            str(h.shardGroup) + ", dp_replicate_size " + str(h.count / h.shardGroup) + ").");
    }
    put("machine_rank", "0");
    put("main_training_function", "main");
    put("mixed_precision", mixed);
    put("num_machines", str(tr.nodes));
    put("num_processes", str(h.count));
    put("rdzv_backend", "static");
    put("same_network", "true");
    put("use_cpu", "false");
    std::vector<std::string> head = tr.head;
    head.push_back("Layout: distributed_type " + distributed +
                   (distributed == "DEEPSPEED" ? " (ZeRO stage " + str(h.zero) + ")"
                    : distributed == "FSDP"    ? " (FSDP2 full shard: ZeRO-3)"
                                               : std::string()) +
                   ", mixed_precision " + mixed + ".");
    head.push_back(scriptArgsNote(tr));
    head.push_back("The arguments after train.py are transformers TrainingArguments names (a Trainer-based script); "
                   "micro-batch and accumulation are the script's settings, not accelerate's.");
    head.push_back("accelerate prints no memory figure at start: compare torch.cuda.max_memory_reserved() plus the CUDA "
                   "context (nvidia-smi's figure) with the prediction above; the Trainer logs train_samples_per_second "
                   "at the end (gpuplanner-cli record reads it).");
    for (const auto& n : notes)
        head.push_back(n);
    Cmd c(spec, "accelerate");
    c.word("launch").flag("--config_file", "accelerate_config.yaml");
    c.word("train.py").word("--per_device_train_batch_size").word(str(w.microBatch));
    c.word("--gradient_accumulation_steps").word(str(w.gradAccum));
    if (w.checkpointing != Checkpointing::None)
        c.word("--gradient_checkpointing");
    std::string cfgText = commentBlock(tr.head, "#") + commentBlock({"accelerate config (keys of src/accelerate/commands/config/config_args.py and cluster.py)"}, "#") + yaml;
    return trainingFiles(spec, head, c, notes, "accelerate_config.yaml", cfgText);
}

// ---------------------------------------------------------------- torchtune

LaunchFiles writeTorchtune(const LaunchTarget& t, const EngineSpec& spec, const Calibration* cal)
{
    Training tr = prepareTraining(t, spec);
    const TrainingWorkload& w = tr.w;
    const Hardware& h = tr.h;
    const Scenario& s = t.scenario;
    if (!s.model.isLanguageModel())
        refuse(spec.id, "torchtune fine-tunes language models; " + s.model.name + " is a vision model");
    const auto& presets = spec.doc.at("presets");
    if (s.modelSpec.form != ModelSpec::Form::Preset || !presets.contains(s.modelSpec.presetId)) {
        std::string list;
        for (const auto& [k, v] : presets.items())
            list += (list.empty() ? "" : ", ") + k;
        refuse(spec.id, "torchtune " + spec.version + " ships recipe configs for these presets only: " + list + "; " +
                            (s.model.name.empty() ? std::string("this model") : s.model.name) + " has none");
    }
    if (w.precision == TrainPrecision::AmpBF16 || w.precision == TrainPrecision::AmpFP16 || w.precision == TrainPrecision::FP8)
        refuse(spec.id, "torchtune trains in one dtype (dtype: bf16 or fp32, torchtune/training/precision.py), with no "
                        "autocast mixed precision or FP8; plan with precision bf16");
    if (w.checkpointing == Checkpointing::Selective)
        refuse(spec.id, "torchtune checkpoints whole layers (enable_activation_checkpointing) or none; plan with "
                        "activation_checkpointing full or none");
    if (w.optimizer == Optimizer::SGD || w.optimizer == Optimizer::SGDMomentum)
        refuse(spec.id, "torchtune's recipe configs ship AdamW optimizers; plan with adamw or adamw_8bit");
    if (h.count > 1 && h.zero != 3)
        refuse(spec.id, "torchtune's distributed recipes always shard fully (FSDP2, ZeRO-3); the option uses ZeRO " +
                            str(h.zero) + " on " + str(h.count) + " GPUs");
    const auto& fam = presets.at(s.modelSpec.presetId);
    const std::string prefix = fam.at("family").get<std::string>() + "/" + fam.at("size").get<std::string>() + "_";
    const bool single = h.count == 1;
    const std::string method = w.method == TrainMethod::Full ? "full" : "lora";
    const std::string recipe = method + "_finetune_" + (single ? "single_device" : "distributed");
    std::string config;
    for (const auto& [name, c] : spec.doc.at("configs").items()) {
        if (name.rfind(prefix, 0) != 0 || c.at("recipe").get<std::string>() != recipe)
            continue;
        const bool isQ = name.find("qlora") != std::string::npos;
        if ((w.method == TrainMethod::Qlora) != isQ)
            continue;
        if (config.empty() || name.size() < config.size())
            config = name;
    }
    if (config.empty())
        refuse(spec.id, "torchtune " + spec.version + " has no " + recipe + " config for " + s.model.name + " (" +
                            std::string(toString(w.method)) + "); its configs for this model are in recipes/configs/" +
                            fam.at("family").get<std::string>() + "/");
    const auto& cfg = spec.doc.at("configs").at(config);
    std::set<std::string> keys;
    for (const auto& k : cfg.at("keys"))
        keys.insert(k.get<std::string>());
    std::vector<std::string> overrides;
    auto set = [&](const std::string& k, const std::string& v) {
        if (!keys.count(k))
            throw std::logic_error("launch: torchtune config " + config + " has no key " + k);
        overrides.push_back(k + "=" + v);
    };
    std::vector<std::string> notes;
    set("batch_size", str(w.microBatch));
    set("gradient_accumulation_steps", str(w.gradAccum));
    set("dtype", w.precision == TrainPrecision::BF16 ? "bf16" : "fp32");
    set("enable_activation_checkpointing", w.checkpointing == Checkpointing::Full ? "True" : "False");
    set("tokenizer.max_seq_len", str(w.seqLen));
    set("optimizer._component_", w.optimizer == Optimizer::AdamW8bit ? "bitsandbytes.optim.PagedAdamW8bit" : "torch.optim.AdamW");
    if (keys.count("optimizer_in_bwd"))
        set("optimizer_in_bwd", "False");
    if (w.method != TrainMethod::Full) {
        set("model.lora_rank", str(w.loraRank));
        std::string attn;
        bool mlp = false;
        for (const auto& m : w.loraTargets) {
            if (m == "q_proj" || m == "k_proj" || m == "v_proj")
                attn += (attn.empty() ? "" : ",") + m;
            else if (m == "o_proj")
                attn += std::string(attn.empty() ? "" : ",") + "output_proj";
            else if (m == "gate_proj" || m == "up_proj" || m == "down_proj")
                mlp = true;
        }
        set("model.lora_attn_modules", "'[" + attn + "]'"); // quoted: [ ] are shell globs
        set("model.apply_lora_to_mlp", mlp ? "True" : "False");
        if (mlp)
            notes.push_back("torchtune's apply_lora_to_mlp puts adapters on all three MLP projections (w1, w2, w3).");
    }
    const auto loss = cfg.find("loss_component");
    if (loss != cfg.end() && loss->is_string() && loss->get<std::string>().find("LinearCrossEntropyLoss") != std::string::npos)
        notes.push_back("torchtune's LinearCrossEntropyLoss computes the loss in chunks and never holds the whole logits: "
                        "expect a lower peak than the plan's, which keeps the logits whole.");
    std::vector<std::string> head = tr.head;
    const Calibration& c0 = cal ? *cal : builtinCalibration();
    const double reserved = t.estimate.memory.total() - c0.contextCudaMib * units::kMiB;
    head.push_back("Recipe " + recipe + " with config " + config + " (" + cfg.at("file").get<std::string>() + "), overridden below.");
    head.push_back("torchtune logs each step (log_peak_memory_stats: True) as \"Step N | name:value\" lines: predicted "
                   "peak_memory_reserved ~ " + num(bytesToGiB(reserved), 2) + " GiB (the total above less the CUDA context, "
                   "which torch does not reserve), tokens_per_second_per_gpu ~ " +
                   num(t.estimate.training ? t.estimate.training->tokensPerS / h.count : 0, 0) + ".");
    for (const auto& n : notes)
        head.push_back(n);
    Cmd c(spec, "tune");
    c.word("run");
    if (!single)
        c.flag("--nproc_per_node", str(tr.perNode));
    c.word(recipe).flag("--config", config);
    for (const auto& o : overrides)
        c.word(o);
    return trainingFiles(spec, head, c, notes);
}

} // namespace gp::launchwriter
