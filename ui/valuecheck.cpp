#include "valuecheck.h"

#include "core/base/errors.h"
#include "core/scenario/scenario.h"

#include <QObject>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace gp::ui {

QString scenarioValueProblem(const QString& keyPath, const QVariant& value)
{
    if (!value.isValid() || value.isNull())
        return QObject::tr("%1: must be a number; the field is empty").arg(keyPath);
    nlohmann::json v;
    switch (value.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong: v = value.toLongLong(); break;
    case QMetaType::Double: v = value.toDouble(); break;
    default: v = value.toString().toStdString(); break;
    }
    // A scenario that holds nothing but this value (and what a file must have),
    // read by the core's own parser: its ranges and wording, no copy of them here.
    const std::string path = keyPath.toStdString();
    const bool inModel = path.rfind("model.", 0) == 0;
    nlohmann::json doc = {{"format", "gpuplanner-scenario"},
                          {"version", 1},
                          {"model", inModel ? nlohmann::json::object() : nlohmann::json{{"params", 1e9}}},
                          {"workload",
                           {{"mode", path.rfind("workload.inference", 0) == 0 ? "inference" : "training"}}}};
    nlohmann::json* node = &doc;
    const QStringList parts = keyPath.split(QLatin1Char('.'));
    for (qsizetype i = 0; i + 1 < parts.size(); ++i)
        node = &(*node)[parts[i].toStdString()];
    (*node)[parts.back().toStdString()] = v;
    QStringList out;
    try {
        (void)gp::parseScenario(doc.dump());
    } catch (const gp::InputError& e) {
        for (const auto& d : e.problems())
            if (d.path == path || d.path.rfind(path + ".", 0) == 0)
                out << QString::fromStdString(d.text());
    }
    return out.join(QLatin1Char('\n'));
}

} // namespace gp::ui
