// ZeRO / FSDP sharding of the training model states (see stateBytesPerParam).
#include "core/estimate/sizing.h"

namespace gp::detail {

StateBytes stateBytesPerParam(const Plan& p)
{
    // Model states as DeepSpeed and PyTorch shard them (spec "Hardware"; the
    // ZeRO paper, arXiv 1910.02054, section 5; DeepSpeed's estimators in
    // deepspeed/runtime/zero/stage_1_and_2.py and stage3.py).
    //   no ZeRO (DDP): every GPU holds weights, gradients and optimizer states;
    //     AMP keeps fp32 parameters (the master copy) and fp32 gradients: 4 + 4 + 8.
    //   ZeRO-1/2 (DeepSpeed): the model runs in 16-bit (2 B weights, 2 B gradients);
    //     the fp32 master weights and the moments are sharded (12 B / d), and the
    //     optimizer steps on an fp32 copy of this GPU's gradient partition (4 B / d):
    //     stage 1 = 4 + 16 / d (= estimate_zero2_model_states_mem_needs),
    //     stage 2 also shards the 16-bit gradients: 2 + 18 / d.
    //   ZeRO-3 (FSDP full shard with a bf16 MixedPrecision policy): the fp32
    //     parameter shard is the master copy, gradients are reduce-scattered into an
    //     fp32 shard: (4 + 4 + 8) / d, plus the unsharded 16-bit units in flight.
    //   Without mixed precision (pure bf16, fp32) there is no master copy: the
    //   stored weights, gradients and states are sharded as they are.
    const auto& t = p.s->training;
    double states = 0;
    switch (t.optimizer) {
    case Optimizer::AdamW:
        states = 2 * p.stateBytes;
        break;
    case Optimizer::SGDMomentum:
        states = p.stateBytes;
        break;
    case Optimizer::SGD:
        states = 0;
        break;
    case Optimizer::AdamW8bit:
        states = 2.0 * 1.016;
        break; // two 8-bit moments + block-wise scales (bitsandbytes, block 2048)
    }
    const double d = p.shard;
    StateBytes b;
    if (p.zero == 0) {
        b = {p.weightBytes, p.gradBytes, states, 0};
    } else if (p.autocast) {
        const double master = 4, fp32Grad = 4, half = 2;
        if (p.zero == 1)
            b = {half, half + fp32Grad / d, (master + states) / d, 0};
        else if (p.zero == 2)
            b = {half, (half + fp32Grad) / d, (master + states) / d, 0};
        else
            b = {master / d, fp32Grad / d, states / d, half};
    } else {
        const double w = p.weightBytes, g = p.gradBytes;
        if (p.zero == 1)
            b = {w, g, states / d, 0};
        else if (p.zero == 2)
            b = {w, g / d, states / d, 0};
        else
            b = {w / d, g / d, states / d, w};
    }
    if (d <= 1)
        b.gathered = 0; // nothing to gather from a single shard
    return b;
}

} // namespace gp::detail
