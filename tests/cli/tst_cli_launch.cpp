// gpuplanner-cli launch: for the serving and training examples, every engine's
// files are written (or refused with the reason), parsed back (command line, JSON,
// YAML) and every flag / key is checked against the engine's documented list and
// every number against the plan; and a launch onto a full disk fails without
// touching the previous files. record and the calibration round trip are in
// tst_cli_record.cpp.
#include "launch_files.h"

#include "core/hardware/catalog.h"
#include "core/engines/enginecatalog.h"
#include "core/engines/launch.h"
#include "core/scenario/scenario.h"

#include <QtTest>

#include <filesystem>

// A launch run and the serve.sh it wrote (empty when it failed).
struct Served {
    Result result;
    std::string script;
};

class TestCliLaunch : public QObject, protected gp::test::TempFiles {
    Q_OBJECT

private:
    /// The plan's option of rank N, as `plan` prints it.
    nlohmann::json planOption(const std::string& file, int rank)
    {
        const Result r = runCli({"plan", file, "--top", std::to_string(std::max(10, rank))});
        if (r.code != 0)
            return nullptr;
        const nlohmann::json doc = nlohmann::json::parse(r.out);
        for (const auto& o : doc["options"])
            if (o["rank"] == rank)
                return o;
        return nullptr;
    }

    /// Every flag of `c` is in the engine's documented list.
    static void checkFlags(const Command& c, const gp::EngineSpec& spec)
    {
        for (const auto& f : c.flagOrder)
            QVERIFY2(spec.hasFlag(f), (spec.id + ": flag " + f + " is not in " + spec.name + " " + spec.version + "'s list").c_str());
        for (const auto& [f, v] : c.flags)
            QVERIFY2(v.empty() || spec.accepts(f, v), (spec.id + ": " + f + " " + v + " is not an accepted value").c_str());
    }

    void checkServing(const std::string& file, int option, const std::string& engine)
    {
        const std::string dir = path("serve-" + std::filesystem::path(file).stem().string() + "-" + std::to_string(option) + "-" + engine);
        const Result r = runCli({"launch", file, "--option", std::to_string(option), "--for", engine, "-o", dir});
        QVERIFY2(r.code == 0, describe(r));
        const gp::EngineSpec& spec = gp::engineSpec(engine);
        const std::string script = readFile(dir + "/serve.sh");
        // The header: version, memory and speed with uncertainty.
        QVERIFY(script.find("checked against " + spec.name + " " + spec.version) != std::string::npos);
        QVERIFY(script.find("Predicted memory per GPU: ") != std::string::npos);
        QVERIFY(script.find("(1 sigma)") != std::string::npos);
        QVERIFY(script.find("Predicted speed per replica: TPOT ") != std::string::npos);
        // The numbers the command must carry: the plan's (option N) or the scenario's (0).
        const gp::ParsedScenario parsed = gp::parseScenario(readFile(file));
        const gp::Scenario& s = parsed.scenario;
        int tp = s.hardware.tp, pp = s.hardware.pp, batch = s.inference.batch, replicas = 1;
        std::string precision(gp::toString(s.inference.precision));
        if (option > 0) {
            const nlohmann::json o = planOption(file, option);
            QVERIFY(!o.is_null());
            tp = o["tp"];
            pp = o["pp"];
            batch = o["micro_batch"];
            replicas = o["replicas"];
            precision = o["precision"];
        }
        const int maxLen = s.inference.promptTokens + s.inference.outputTokens;
        const auto cmds = commands(script);
        QCOMPARE(int(cmds.size()), replicas);
        for (const auto& c : cmds) {
            checkFlags(c, spec);
            if (engine == "vllm") {
                QCOMPARE(c.words[0], std::string("vllm"));
                QCOMPARE(c.words[1], std::string("serve"));
                QCOMPARE(std::stoi(c.flags.at("--tensor-parallel-size")), tp);
                QCOMPARE(c.flags.count("--pipeline-parallel-size") ? std::stoi(c.flags.at("--pipeline-parallel-size")) : 1, pp);
                QCOMPARE(std::stoi(c.flags.at("--max-num-seqs")), batch);
                QCOMPARE(std::stoi(c.flags.at("--max-model-len")), maxLen);
                QCOMPARE(std::stod(c.flags.at("--gpu-memory-utilization")), 0.9);
                QCOMPARE(c.flags.count("--quantization") ? c.flags.at("--quantization") : std::string(),
                         std::string(precision == "fp8" ? "fp8" : precision == "fp4" ? "modelopt_fp4" : precision == "int4" ? "awq" : ""));
                if (precision == "bf16")
                    QCOMPARE(c.flags.at("--dtype"), std::string("bfloat16"));
            } else if (engine == "sglang") {
                QCOMPARE(c.words[1], std::string("sglang.launch_server"));
                QCOMPARE(std::stoi(c.flags.at("--tp-size")), tp);
                QCOMPARE(std::stoi(c.flags.at("--max-running-requests")), batch);
                QCOMPARE(std::stoi(c.flags.at("--context-length")), maxLen);
                QCOMPARE(std::stod(c.flags.at("--mem-fraction-static")), 0.9);
                QCOMPARE(c.flags.count("--quantization") ? c.flags.at("--quantization") : std::string(),
                         std::string(precision == "fp8" ? "fp8" : precision == "fp4" ? "modelopt_fp4" : precision == "int4" ? "awq" : ""));
            } else {
                QCOMPARE(c.words[0], std::string("trtllm-serve"));
                QCOMPARE(std::stoi(c.flags.at("--tp_size")), tp);
                QCOMPARE(std::stoi(c.flags.at("--pp_size")), pp);
                QCOMPARE(std::stoi(c.flags.at("--max_batch_size")), batch);
                QCOMPARE(std::stoi(c.flags.at("--max_seq_len")), maxLen);
                const double fraction = std::stod(c.flags.at("--kv_cache_free_gpu_memory_fraction"));
                QVERIFY(fraction > 0 && fraction < 0.9);
                const auto yaml = yamlKeys(readFile(dir + "/extra_llm_api_options.yaml"));
                for (const auto& [k, v] : yaml)
                    QVERIFY2(spec.hasKey(k), ("trtllm: key " + k + " is not in the list").c_str());
                QCOMPARE(std::stod(yaml.at("kv_cache_config.free_gpu_memory_fraction")), fraction);
            }
        }
    }

    void checkTraining(const std::string& file, const std::string& engine)
    {
        const std::string dir = path("train-" + std::filesystem::path(file).stem().string() + "-" + engine);
        const Result r = runCli({"launch", file, "--for", engine, "-o", dir});
        QVERIFY2(r.code == 0, describe(r));
        const gp::EngineSpec& spec = gp::engineSpec(engine);
        const nlohmann::json o = planOption(file, 1);
        QVERIFY(!o.is_null());
        const int count = o["count"], zero = o["zero"], micro = o["micro_batch"], accum = o["grad_accum"];
        const std::string precision = o["precision"];
        const std::string script = readFile(dir + "/launch.sh");
        QVERIFY(script.find("checked against " + spec.name + " " + spec.version) != std::string::npos);
        QVERIFY(script.find("Predicted memory per GPU: ") != std::string::npos);
        QVERIFY(script.find("Predicted speed: step ") != std::string::npos);
        const auto cmds = commands(script);
        QCOMPARE(int(cmds.size()), 1);
        const Command& c = cmds[0];
        checkFlags(c, spec);
        if (engine == "torchrun-fsdp") {
            QCOMPARE(std::stoi(c.flags.at("--nproc-per-node")), std::min(count, 8));
            std::map<std::string, nlohmann::json> keys;
            flatten(nlohmann::json::parse(readFile(dir + "/fsdp_config.json")), "", keys);
            for (const auto& [k, v] : keys)
                QVERIFY2(spec.hasKey(k) || spec.scriptKeys.count(k), ("torchrun-fsdp: key " + k).c_str());
            QCOMPARE(keys.at("training.micro_batch_size").get<int>(), micro);
            QCOMPARE(keys.at("training.gradient_accumulation_steps").get<int>(), accum);
            QCOMPARE(keys.at("training.precision").get<std::string>(), precision);
            if (zero >= 2)
                QCOMPARE(keys.at("fully_shard.reshard_after_forward").get<bool>(), zero == 3);
            if (zero == 1 && count > 1)
                QVERIFY(keys.count("zero_redundancy_optimizer.optimizer_class"));
        } else if (engine == "deepspeed") {
            QCOMPARE(std::stoi(c.flags.at("--num_gpus")), std::min(count, 8));
            QCOMPARE(c.flags.at("--deepspeed_config"), std::string("ds_config.json"));
            std::map<std::string, nlohmann::json> keys;
            flatten(nlohmann::json::parse(readFile(dir + "/ds_config.json")), "", keys);
            for (const auto& [k, v] : keys)
                QVERIFY2(spec.hasKey(k), ("deepspeed: key " + k).c_str());
            QCOMPARE(keys.at("train_micro_batch_size_per_gpu").get<int>(), micro);
            QCOMPARE(keys.at("gradient_accumulation_steps").get<int>(), accum);
            QCOMPARE(keys.at("train_batch_size").get<int>(), micro * accum * count);
            QCOMPARE(keys.at("zero_optimization.stage").get<int>(), zero);
            QCOMPARE(keys.count("bf16.enabled") > 0, precision == "amp_bf16" || precision == "bf16");
            QCOMPARE(keys.count("fp16.enabled") > 0, precision == "amp_fp16");
            QVERIFY(spec.accepts("optimizer.type", keys.at("optimizer.type").get<std::string>()));
        } else if (engine == "accelerate") {
            QCOMPARE(c.flags.at("--config_file"), std::string("accelerate_config.yaml"));
            const auto yaml = yamlKeys(readFile(dir + "/accelerate_config.yaml"));
            for (const auto& [k, v] : yaml) {
                QVERIFY2(spec.hasKey(k), ("accelerate: key " + k).c_str());
                QVERIFY2(v.empty() || spec.accepts(k, v), ("accelerate: " + k + ": " + v).c_str());
            }
            QCOMPARE(std::stoi(yaml.at("num_processes")), count);
            QCOMPARE(yaml.at("mixed_precision"),
                     std::string(precision == "amp_bf16" ? "bf16" : precision == "amp_fp16" ? "fp16" : precision == "fp8" ? "fp8" : "no"));
            if (yaml.at("distributed_type") == "DEEPSPEED") {
                QCOMPARE(std::stoi(yaml.at("deepspeed_config.zero_stage")), zero);
                QCOMPARE(std::stoi(yaml.at("deepspeed_config.gradient_accumulation_steps")), accum);
            }
            // The script's batch arguments (Trainer names)
            const auto& w = c.tokens;
            const auto it = std::find(w.begin(), w.end(), "--per_device_train_batch_size");
            QVERIFY(it != w.end() && std::stoi(*(it + 1)) == micro);
        } else if (engine == "torchtune") {
            QCOMPARE(c.words[0], std::string("tune"));
            const std::string config = c.flags.at("--config");
            const auto& cfg = spec.doc["configs"][config];
            std::set<std::string> keys;
            for (const auto& k : cfg["keys"])
                keys.insert(k.get<std::string>());
            std::map<std::string, std::string> overrides;
            for (const auto& word : c.words)
                if (const auto eq = word.find('='); eq != std::string::npos) {
                    QVERIFY2(keys.count(word.substr(0, eq)), ("torchtune: " + config + " has no key " + word).c_str());
                    overrides[word.substr(0, eq)] = word.substr(eq + 1);
                }
            QCOMPARE(std::stoi(overrides.at("batch_size")), micro);
            QCOMPARE(std::stoi(overrides.at("gradient_accumulation_steps")), accum);
            QCOMPARE(overrides.at("dtype"), std::string(precision == "bf16" ? "bf16" : "fp32"));
        }
    }

private slots:
    void initTestCase()
    {
        hideCatalogOverlay();
        QVERIFY(m_tmp.isValid());
    }

    void engineListsAreLoadedWithTheirSources()
    {
        QCOMPARE(gp::engineIds().size(), std::size_t(7));
        for (const auto& id : gp::engineIds()) {
            const gp::EngineSpec& e = gp::engineSpec(id);
            QVERIFY2(!e.version.empty() && !e.source.empty() && !e.flags.empty(), id.c_str());
        }
        // A few entries read from the sources (resources/engines/*.json cites them).
        QVERIFY(gp::engineSpec("vllm").hasFlag("--gpu-memory-utilization"));
        QVERIFY(gp::engineSpec("vllm").hasFlag("--max-num-batched-tokens"));
        QVERIFY(!gp::engineSpec("vllm").hasFlag("--gpu-memory-fraction"));
        QVERIFY(gp::engineSpec("sglang").hasFlag("--mem-fraction-static"));
        QVERIFY(gp::engineSpec("trtllm").hasFlag("--kv_cache_free_gpu_memory_fraction"));
        QVERIFY(gp::engineSpec("deepspeed").hasKey("zero_optimization.stage"));
        QVERIFY(gp::engineSpec("accelerate").hasKey("fsdp_config.fsdp_reshard_after_forward"));
        QVERIFY(gp::engineSpec("torchtune").doc["configs"].contains("llama3_1/8B_lora_single_device"));
        const Result r = runCli({"launch", example("llama31-8b-lora-rtx4090"), "--for", "megatron", "-o", path("x")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("--for: unknown engine \"megatron\"; one of vllm, sglang, trtllm") != std::string::npos, describe(r));
    }

    /// The rank of the plan's first option on a GPU whose id starts with `prefix` (0: none).
    int firstRankOn(const std::string& file, const std::string& prefix)
    {
        for (int n = 1; n <= 12; ++n) {
            const nlohmann::json o = planOption(file, n);
            if (o.is_object() && o.contains("gpu") && o["gpu"].get<std::string>().rfind(prefix, 0) == 0)
                return n;
        }
        return 0;
    }

    void servingExamplesForEveryEngine()
    {
        // The plan's own picks, found by vendor (ranks move when the model does).
        const int nvidiaRank = firstRankOn(example("llama31-70b-serve-targets"), "nvidia-");
        const int amdRank = firstRankOn(example("llama31-70b-serve-targets"), "amd-");
        QVERIFY(nvidiaRank > 0 && amdRank > 0);
        for (const char* engine : {"vllm", "sglang", "trtllm"}) {
            checkServing(example("llama31-70b-serve-2xh100-tp"), 0, engine);
            checkServing(example("llama31-70b-serve-2xh100-tp"), 1, engine);
            checkServing(example("llama31-70b-serve-targets"), nvidiaRank, engine);
        }
        checkServing(example("llama31-70b-serve-targets"), amdRank, "vllm");
        checkServing(example("llama31-70b-serve-targets"), amdRank, "sglang");
    }

    void quantizedWeightsNameTheirCheckpoint()
    {
        // Llama 3.1 8B on one H100: each engine's --quantization word and the note that
        // says which checkpoint it loads; vLLM refuses INT8 (no load-time W8A8 of a 16-bit checkpoint).
        auto scenario = [&](const char* precision) {
            const std::string file = path(std::string("q-") + precision + ".gpuplan.json");
            nlohmann::json j = nlohmann::json::parse(R"({"format":"gpuplanner-scenario","version":1,"name":"8B quantized",
              "model":{"preset":"llama-3.1-8b"},
              "workload":{"mode":"inference","runtime":"serving","inference":{"batch":8,"prompt_tokens":512,"output_tokens":128}},
              "hardware":{"gpus":["nvidia-h100-sxm"],"count":1}})");
            j["workload"]["inference"]["precision"] = precision;
            std::ofstream(file) << j.dump();
            return file;
        };
        auto serve = [&](const char* precision, const char* engine) {
            const std::string dir = path(std::string("q-") + precision + "-" + engine);
            const Result r = runCli({"launch", scenario(precision), "--option", "0", "--for", engine, "-o", dir});
            return Served{r, r.code == 0 ? readFile(dir + "/serve.sh") : std::string()};
        };
        const Served v4s = serve("int4", "vllm");
        const Result& v4 = v4s.result;
        const std::string& vllm4 = v4s.script;
        QVERIFY2(v4.code == 0, describe(v4));
        QVERIFY(vllm4.find("--quantization awq") != std::string::npos);
        QVERIFY2(vllm4.find("INT4: --quantization awq loads an AWQ INT4 checkpoint; point the model at one of ") !=
                     std::string::npos, vllm4.c_str());
        const Served s4s = serve("int4", "sglang");
        const Result& s4 = s4s.result;
        const std::string& sglang4 = s4s.script;
        QVERIFY2(s4.code == 0, describe(s4));
        QVERIFY(sglang4.find("INT4: --quantization awq loads an AWQ INT4 checkpoint; point --model-path at one.") !=
                std::string::npos);
        const Served s8s = serve("int8", "sglang");
        const Result& s8 = s8s.result;
        const std::string& sglang8 = s8s.script;
        QVERIFY2(s8.code == 0, describe(s8));
        QVERIFY(sglang8.find("--quantization w8a8_int8") != std::string::npos);
        QVERIFY(sglang8.find("INT8: --quantization w8a8_int8 loads a W8A8 INT8 checkpoint; point --model-path at one.") !=
                std::string::npos);
        const Served v8s = serve("int8", "vllm");
        const Result& v8 = v8s.result;
        const std::string& vllm8 = v8s.script;
        QCOMPARE(v8.code, 2);
        QVERIFY2(v8.err.find("vLLM has no INT8 weight quantization of a 16-bit checkpoint at load time") != std::string::npos,
                 describe(v8));
        QVERIFY(vllm8.empty());
        // Precision "checkpoint": the header names the checkpoint's format (gpt-oss-120b: MXFP4 experts), not bf16.
        const std::string oss = path("oss120b");
        const Result ro = runCli({"launch", GP_TEST_DATA_DIR "/planning-jobs/07-gpt-oss-120b-64-users-32k.gpuplan.json",
                                  "--for", "vllm", "-o", oss});
        QVERIFY2(ro.code == 0, describe(ro));
        QVERIFY(readFile(oss + "/serve.sh").find(", checkpoint weights (MXFP4), 64 concurrent sequences per replica\n") !=
                std::string::npos);
    }

    // vLLM's hybrid KV cache manager (launch.cpp, hybridKv), by hand at
    // max_model_len 32,768 (31,744 + 1,024) and --max-num-batched-tokens 8,192:
    // - gpt-oss-120b, 1 H200: 18 full + 18 sliding (128) layers of 8 KV heads x 64:
    //   2,048 B a token a layer, pages of 16 tokens = 32 KiB, group size 18, 2 groups;
    //   a request needs 2,048 full blocks + cdiv(min(127 + 8,192, 32,768), 16) + 1 =
    //   521 sliding blocks = 2,569.
    // - Gemma 3 27B, 1 H100: 10 full + 52 sliding (1,024) layers of 16 KV heads x 128:
    //   8,192 B, pages of 128 KiB, group size 10 (52 >= 1.25 x 10), 1 + 6 groups;
    //   2,048 + 6 x (cdiv(1,023 + 8,192, 16) + 1 = 577) = 5,510 blocks a request.
    // - Qwen3-Next-80B-A3B, TP 2 on H200: 12 full layers of 2 KV heads x 256 (1,024 B
    //   a token a layer per GPU) + 36 Gated DeltaNet layers of 1,097,728 / 2 B of
    //   state per GPU: the block grows to 16 x cdiv(548,864, 16 x 1,024) = 544
    //   tokens (pages of 557,056 B), group size 12, 1 + 3 groups; a request needs
    //   cdiv(32,768, 544) = 61 full blocks + 3 state blocks = 64.
    // - Llama 3.1 8B: one kind of cache, the uniform pool (no groups): 32 layers x
    //   8 KV heads x 128 x 2 x 2 B = 128 KiB a token, blocks of 16, 2,048 a request.
    void vllmHybridKvCacheManager()
    {
        struct Case {
            nlohmann::json model;
            const char* gpu;
            int tp;
            int groups;
            int blockSize;
            double poolBytesPerBlock; // page x group size
            long long blocksPerRequest;
            const char* precision = "bf16";
        };
        const std::string dir = GP_TEST_DATA_DIR "/hf-configs/";
        auto hf = [&](const char* file) { return nlohmann::json{{"hf_config", nlohmann::json::parse(readFile(dir + file))}}; };
        const std::vector<Case> cases = {
            {hf("gpt-oss-120b.json"), "nvidia-h200-sxm", 1, 2, 16, 32768.0 * 18, 2569, "checkpoint"}, // MXFP4 experts
            {nlohmann::json{{"preset", "gemma-3-27b"}}, "nvidia-h100-sxm", 1, 7, 16, 131072.0 * 10, 5510},
            {hf("qwen3-next-80b-a3b-thinking.json"), "nvidia-h200-sxm", 2, 4, 544, 557056.0 * 12, 64},
            {nlohmann::json{{"preset", "llama-3.1-8b"}}, "nvidia-h100-sxm", 1, 0, 16, 16 * 131072.0, 2048},
        };
        for (const Case& c : cases) {
            nlohmann::json j = nlohmann::json::parse(readFile(example("llama31-70b-serve-2xh100-tp")));
            j["model"] = c.model;
            j["workload"]["runtime"] = "serving";
            j["workload"]["inference"]["batch"] = 16;
            j["workload"]["inference"]["prompt_tokens"] = 31744;
            j["workload"]["inference"]["output_tokens"] = 1024;
            j["workload"]["inference"]["precision"] = c.precision;
            j["workload"]["inference"]["kv_precision"] = "bf16";
            j["hardware"] = {{"gpus", {c.gpu}}, {"count", c.tp}, {"tp", c.tp}};
            const gp::Scenario s = gp::parseScenario(j.dump()).scenario;
            const gp::KvStartup k = gp::predictVllmKv(gp::launchTargetForScenario(s, gp::Catalog::builtin()), 0.9, 16, 8192);
            QCOMPARE(k.maxModelLen, 32768);
            QCOMPARE(k.hybridGroups, c.groups);
            QCOMPARE(k.blockSize, c.blockSize);
            QVERIFY(k.availableBytes > 0);
            QCOMPARE(k.numBlocks, static_cast<long long>(std::floor(k.availableBytes / c.poolBytesPerBlock)));
            QCOMPARE(k.kvTokens, c.groups > 0 ? k.numBlocks / c.groups * c.blockSize : k.numBlocks * c.blockSize);
            QCOMPARE(k.maxConcurrency, double(k.numBlocks) / double(c.blocksPerRequest));
        }
    }

    void vllmHeaderIsComputedTheWayVllmDoes()
    {
        // Llama 3.1 70B, bf16, TP 2 on H100: 80 layers x 8 KV heads x 128 x 2 (K, V)
        // x 2 bytes / 2 GPUs = 163,840 bytes per token per GPU; blocks of 16.
        const std::string dir = path("kv70b");
        QCOMPARE(runCli({"launch", example("llama31-70b-serve-2xh100-tp"), "--option", "0", "--for", "vllm", "-o", dir}).code, 0);
        const std::string s = readFile(dir + "/serve.sh");
        QVERIFY(s.find("KV 160.0 KiB per token per GPU, block size 16") != std::string::npos);
        const double nonKv = headerNumber(s, R"(non-KV memory per GPU \(([0-9.]+) GiB\))");
        const double total = headerNumber(s, R"(0\.90 x ([0-9.]+) GiB, KV)");
        const double tokens = headerNumber(s, R"(GPU KV cache size: ([0-9,]+) tokens)");
        const double concurrency = headerNumber(s, R"(Maximum concurrency for 2,560 tokens per request: ([0-9.]+)x)");
        const double blocks = std::floor((0.9 * total - nonKv) * 1073741824.0 / (16 * 163840.0));
        QVERIFY2(std::fabs(tokens - blocks * 16) <= 16 * 3, s.c_str()); // the header's GiB are rounded to 0.01
        QVERIFY(std::fabs(concurrency - tokens / 16 / 160) < 0.02); // ceil(2560 / 16) = 160 blocks per request
    }

    void trainingExamplesForEveryEngine()
    {
        for (const char* file : {"gpt2-124m-pretrain", "llama31-8b-lora-rtx4090", "resnet50-train", "resnet18-seed-train-b1"})
            for (const char* engine : {"torchrun-fsdp", "deepspeed", "accelerate"})
                checkTraining(example(file), engine);
        checkTraining(example("llama31-8b-lora-rtx4090"), "torchtune");
        // The LoRA example in torchtune's terms.
        // The scenario as it stands (one RTX 4090) is torchtune's single-device recipe.
        const std::string one = path("train-lora-4090-as-it-stands-torchtune");
        QCOMPARE(runCli({"launch", example("llama31-8b-lora-rtx4090"), "--option", "0", "--for", "torchtune", "-o", one}).code, 0);
        const std::string s = readFile(one + "/launch.sh");
        QVERIFY(s.find("tune run lora_finetune_single_device") != std::string::npos);
        QVERIFY(s.find("--config llama3_1/8B_lora_single_device") != std::string::npos);
        QVERIFY(s.find("model.lora_rank=16") != std::string::npos);
        QVERIFY(s.find("model.lora_attn_modules='[q_proj,k_proj,v_proj,output_proj]'") != std::string::npos);
        QVERIFY(s.find("enable_activation_checkpointing=True") != std::string::npos);
    }

    void deepspeedHeaderHasItsModelStateEstimate()
    {
        // ZeRO-3 over 8 H100s: Llama 3.1 8B, P = 8,030,261,248; largest layer = the
        // embedding, 128,256 x 4,096 = 525,336,576. DeepSpeed's formula:
        // 4 x largest + 18 x P / 8 GPUs = 2,101,346,304 + 18,068,087,808 bytes = 18.78 GiB; per CPU (zero_init=1)
        // largest x 4 x 8 GPUs per node x 1.5 = 23.48 GiB.
        const std::string file = path("z3.gpuplan.json");
        std::ofstream(file) << R"({"format":"gpuplanner-scenario","version":1,"name":"8B full ZeRO-3",
          "model":{"preset":"llama-3.1-8b"},
          "workload":{"mode":"training","training":{"method":"full","precision":"amp_bf16","micro_batch":2,"seq_len":2048,
            "activation_checkpointing":"full"}},
          "hardware":{"gpus":["nvidia-h100-sxm"],"count":8,"zero":3}})";
        const Result r = runCli({"launch", file, "--option", "0", "--for", "deepspeed", "-o", path("z3")});
        QVERIFY2(r.code == 0, describe(r));
        const std::string s = readFile(path("z3/launch.sh"));
        QVERIFY2(s.find("#    23.48GB |  18.78GB | offload_param=none, offload_optimizer=none, zero_init=1") != std::string::npos, s.c_str());
        const auto cfg = nlohmann::json::parse(readFile(path("z3/ds_config.json")));
        QCOMPARE(cfg["zero_optimization"]["stage"].get<int>(), 3);
        QCOMPARE(cfg["train_batch_size"].get<int>(), 16);
    }

    void refusalsNameTheProblem()
    {
        struct Case {
            std::string file;
            std::string option;
            std::string engine;
            std::string expect;
        };
        // FP4 on a GPU without FP4 tensor cores (the 2x H100 example at precision fp4).
        nlohmann::json fp4 = nlohmann::json::parse(readFile(example("llama31-70b-serve-2xh100-tp")));
        fp4["workload"]["inference"]["precision"] = "fp4";
        fp4["workload"]["inference"].erase("kv_precision");
        const std::string fp4OnH100 = path("fp4-on-h100.gpuplan.json");
        {
            std::ofstream out(fp4OnH100);
            out << fp4.dump(2);
        }
        // LoRA on 2 GPUs with tensor parallelism: no adapter stack runs it.
        nlohmann::json loraTp = nlohmann::json::parse(readFile(example("llama31-8b-lora-rtx4090")));
        loraTp["hardware"]["count"] = 2;
        loraTp["hardware"]["tp"] = 2;
        const std::string loraTpFile = path("lora-tp2.gpuplan.json");
        {
            std::ofstream out(loraTpFile);
            out << loraTp.dump(2);
        }
        const std::vector<Case> cases = {
            {loraTpFile, "0", "accelerate",
             "--for accelerate: Hugging Face Accelerate runs LoRA and QLoRA data parallel, with the frozen base sharded by "
             "ZeRO-3 / FSDP, never tensor or pipeline parallel (the option uses TP 2, PP 1); set hardware.tp and "
             "hardware.pp to 1, or take a plan option (they are data parallel)"},
            {example("llama31-8b-lora-rtx4090"), "1", "vllm", "--for vllm: vLLM is a serving engine and the scenario is a training workload"},
            {example("llama31-70b-serve-2xh100-tp"), "0", "deepspeed", "--for deepspeed: DeepSpeed is a training engine and the scenario is an inference workload"},
            {example("gpt2-124m-pretrain"), "1", "torchtune", "--for torchtune: torchtune 0.7.0 ships recipe configs for these presets only"},
            {example("resnet50-train"), "1", "torchtune", "--for torchtune: torchtune fine-tunes language models"},
            {example("resnet18-seed-inference"), "1", "vllm", "vLLM serves language models; ResNet-18 is a vision model"},
            {example("llama31-70b-serve-targets"), std::to_string(firstRankOn(example("llama31-70b-serve-targets"), "amd-")), "trtllm",
             "--for trtllm: TensorRT-LLM runs on NVIDIA GPUs only"},
            {fp4OnH100, "0", "vllm", "--quantization modelopt_fp4 serves NVIDIA's NVFP4 checkpoints"},
            {example("llama31-70b-serve-targets"), "0", "vllm", "hardware.gpus: --option 0 launches the scenario as it stands, which needs hardware.gpus to name exactly one GPU"},
            {example("llama31-70b-serve-2xh100-tp"), "999", "vllm", "--option: the plan has no option of rank 999"},
        };
        for (const auto& c : cases) {
            const Result r = runCli({"launch", c.file, "--option", c.option, "--for", c.engine, "-o", path("refused")});
            QVERIFY2(r.code == 2, describe(r));
            QVERIFY2(r.err.find(c.expect) != std::string::npos, describe(r));
            QVERIFY(r.out.empty());
        }
        QVERIFY(!std::filesystem::exists(path("refused")));
        // MIG: a slice cannot join another GPU.
        const std::string file = path("mig.gpuplan.json");
        std::ofstream(file) << R"({"format":"gpuplanner-scenario","version":1,"name":"mig tp",
          "model":{"preset":"llama-3.2-1b"},"workload":{"mode":"inference","runtime":"serving","inference":{"batch":4}},
          "hardware":{"gpus":["nvidia-h100-sxm"],"count":1,"mig":"3g"}})";
        gp::Scenario s = gp::parseScenario(readFile(file)).scenario;
        gp::LaunchTarget t = gp::launchTargetForScenario(s, gp::Catalog::builtin());
        QCOMPARE(gp::generateLaunch(t, "vllm").files.size(), std::size_t(1)); // one slice: fine
        t.scenario.hardware.count = 2;
        t.scenario.hardware.tp = 2;
        try {
            (void)gp::generateLaunch(t, "vllm");
            QFAIL("MIG with TP 2 was not refused");
        } catch (const gp::InputError& e) {
            QVERIFY(std::string(e.what()).find("MIG has no GPU-to-GPU peer-to-peer") != std::string::npos);
        }
        // Usage errors
        QCOMPARE(runCli({"launch", example("llama31-8b-lora-rtx4090"), "-o", path("u")}).code, 2);
        QCOMPARE(runCli({"launch", example("llama31-8b-lora-rtx4090"), "--for", "deepspeed"}).code, 2);
        QCOMPARE(runCli({"launch", example("llama31-8b-lora-rtx4090"), "--option", "-1", "--for", "deepspeed", "-o", path("u")}).code, 2);
    }

    void launchOntoAFullDiskKeepsThePreviousFiles()
    {
        const std::string scenario = example("llama31-70b-serve-2xh100-tp");
        // A write that fails partway, as on a full disk: the child's file-size limit
        // (RLIMIT_FSIZE, 1 KiB) fails write() past 1 KiB, and serve.sh is longer.
        // Without the CLI's own care, SIGXFSZ would end it with the .part file left.
        const std::string dir = path("full-disk");
        std::filesystem::create_directories(dir);
        const std::string previous = "#!/usr/bin/env bash\necho the previous serve.sh\n";
        gp::test::writeFile(dir + "/serve.sh", previous);
        const ChildResult r = runCliInChild({"launch", scenario, "--option", "0", "--for", "vllm", "-o", dir}, {1024, 60});
        QCOMPARE(r.killedBy, 0);
        QVERIFY2(r.code == 1, describe(r));
        QVERIFY2(r.out.empty(), describe(r));
        QCOMPARE(r.err, dir + "/serve.sh: cannot write: File too large\n");
        QCOMPARE(readFile(dir + "/serve.sh"), previous);               // byte for byte
        QCOMPARE(namesIn(dir), std::vector<std::string>{"serve.sh"}); // no .gpuplanner-*.part, no half file
        // /dev/full as the file: refused before any write, the link left as it was.
        const std::string dev = path("dev-full");
        std::filesystem::create_directories(dev);
        std::filesystem::create_symlink("/dev/full", dev + "/serve.sh");
        const Result d = runCli({"launch", scenario, "--option", "0", "--for", "vllm", "-o", dev});
        QVERIFY2(d.code == 1, describe(d));
        QCOMPARE(d.err, dev + "/serve.sh: is not a regular file; refused\n");
        QVERIFY(std::filesystem::is_symlink(dev + "/serve.sh"));
        QCOMPARE(namesIn(dev), std::vector<std::string>{"serve.sh"});
        // A folder that cannot be made (below a device): the reason, exit 1.
        const Result n = runCli({"launch", scenario, "--option", "0", "--for", "vllm", "-o", "/dev/full/launch"});
        QVERIFY2(n.code == 1, describe(n));
        QCOMPARE(n.err, std::string("/dev/full/launch: cannot create the folder: Not a directory\n"));
    }
};

QTEST_GUILESS_MAIN(TestCliLaunch)
#include "tst_cli_launch.moc"
