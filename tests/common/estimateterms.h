#pragma once
// An estimate's term by key, for the tests; a missing term ends the test binary
// with its key (a renamed term must not read as zero).
#include "core/estimate/estimate.h"

#include <QtGlobal>

#include <string>

inline const gp::Term* term(const gp::GpuEstimate& e, const std::string& key)
{
    for (const auto& t : e.terms)
        if (t.key == key)
            return &t;
    qFatal("no term %s in the estimate", key.c_str());
}

inline double termValue(const gp::GpuEstimate& e, const std::string& key) { return term(e, key)->value; }
