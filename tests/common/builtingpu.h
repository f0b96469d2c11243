#pragma once
// A GPU of the built-in catalog by id, for the tests; a missing id stops the test
// binary with its name (a renamed catalog entry must not pass as an empty GPU).
#include "core/hardware/catalog.h"

#include <QtGlobal>

inline const gp::Gpu& builtinGpu(const char* id)
{
    const gp::Gpu* g = gp::Catalog::builtin().find(id);
    if (!g)
        qFatal("built-in catalog lacks %s", id);
    return *g;
}

inline const gp::Gpu& gpu(const char* id) { return builtinGpu(id); }
