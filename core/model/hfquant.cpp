// config.json reader: quantization_config (MXFP4, FP8 blocks, AWQ/GPTQ,
// bitsandbytes, compressed-tensors): how the checkpoint stores its weights.
#include "core/model/hfread.h"

#include <algorithm>
#include <string>

namespace gp::detail::hf {

void readQuantization(Keys& k, ModelArch& m)
{
    const json* q = k.get("quantization_config");
    if (!q)
        return;
    const std::string qp = k.r.keyPath("quantization_config");
    if (!q->is_object()) {
        k.fail("quantization_config", "must be an object, got " + detail::describe(*q));
        return;
    }
    auto str = [&](const char* key) { return q->contains(key) && (*q)[key].is_string() ? (*q)[key].get<std::string>() : ""; };
    auto integer = [&](const char* key, int fb) {
        return q->contains(key) && (*q)[key].is_number_integer() ? (*q)[key].get<int>() : fb;
    };
    auto boolean = [&](const char* key) { return q->contains(key) && (*q)[key].is_boolean() && (*q)[key].get<bool>(); };
    CheckpointQuant& c = m.quant;
    c.method = str("quant_method");
    if (c.method == "mxfp4") {
        // transformers' Mxfp4 quantizer converts the experts only; attention,
        // router, embeddings and head stay BF16 (modules_to_not_convert).
        c.kind = QuantKind::MXFP4;
        c.bits = 4;
        c.groupSize = 32;
        c.expertsOnly = true;
    } else if (c.method == "fp8") {
        const json* block = q->contains("weight_block_size") ? &(*q)["weight_block_size"] : nullptr;
        if (block && block->is_array() && block->size() == 2 && (*block)[0].is_number_integer()) {
            c.kind = QuantKind::FP8Block;
            c.groupSize = std::clamp((*block)[0].get<int>(), 1, 1 << 20);
        } else {
            c.kind = QuantKind::FP8;
        }
        c.bits = 8;
    } else if (c.method == "awq" || c.method == "gptq") {
        c.kind = QuantKind::IntGroup;
        c.bits = integer("bits", integer("w_bit", 4));
        c.groupSize = integer("group_size", integer("q_group_size", 128));
        if (c.groupSize < 0)
            c.groupSize = 0; // GPTQ group_size -1: one scale per column
        if (c.bits < 1 || c.bits > 8) {
            k.fail("quantization_config", "bits must be 1..8, got " + std::to_string(c.bits));
            c.kind = QuantKind::None;
        }
    } else if (c.method == "bitsandbytes") {
        if (boolean("load_in_4bit")) {
            c.kind = QuantKind::NF4; // fp4 has the same storage
            c.bits = 4;
            c.doubleQuant = boolean("bnb_4bit_use_double_quant");
        } else if (boolean("load_in_8bit")) {
            c.kind = QuantKind::Int8;
            c.bits = 8;
        }
    } else if (c.method == "compressed-tensors") {
        // The common FP8 (W8A8) and W4A16 schemes: the first config group's weights.
        if (q->contains("config_groups") && (*q)["config_groups"].is_object() && !(*q)["config_groups"].empty()) {
            const json& g = (*q)["config_groups"].begin().value();
            const json* w = g.contains("weights") ? &g["weights"] : nullptr;
            if (w && w->is_object()) {
                const int bits = w->contains("num_bits") && (*w)["num_bits"].is_number_integer() ? (*w)["num_bits"].get<int>() : 16;
                const std::string type = w->contains("type") && (*w)["type"].is_string() ? (*w)["type"].get<std::string>() : "";
                if (bits == 8 && type == "float") {
                    c.kind = QuantKind::FP8;
                    c.bits = 8;
                } else if (bits <= 8 && type == "int") {
                    c.kind = QuantKind::IntGroup;
                    c.bits = bits;
                    c.groupSize = w->contains("group_size") && (*w)["group_size"].is_number_integer() ? (*w)["group_size"].get<int>() : 0;
                }
            }
        }
    }
    if (!c.quantized())
        m.readNotes.push_back(qp + ": quant_method \"" + c.method +
                              "\" not read; the weights are counted at the checkpoint's torch_dtype");
}

} // namespace gp::detail::hf
