#include "reportlaunch.h"

#include "reporthtml.h"

#include "core/engines/enginecatalog.h"
#include "core/base/errors.h"
#include "core/engines/launch.h"
#include "core/plan/planner.h"

#include <QObject>
#include <optional>

namespace gp::ui {

QString launchAppendixHtml(const gp::Scenario& s, const gp::PlanResult* plan, const gp::Catalog& catalog,
                           const gp::Calibration* calibration)
{
    std::optional<gp::LaunchTarget> target;
    try {
        if (plan && !plan->options.empty() && plan->options.front().fits)
            target = gp::launchTargetForOption(s, plan->options.front(), catalog, calibration);
        else if (s.hardware.gpus.size() == 1)
            target = gp::launchTargetForScenario(s, catalog, calibration);
    } catch (const std::exception&) {
        return {};
    }
    if (!target)
        return {};
    const auto esc = [](const std::string& t) { return QString::fromStdString(t).toHtmlEscaped(); };
    QString h = reporthtml::style() + QObject::tr("<h2>Appendix: launch commands</h2>");
    h += QObject::tr("<p>What <code>gpuplanner-cli launch FILE --for ENGINE -o DIR</code> writes for %1. Each file "
                     "also opens with the engine version its flags were checked against, the predicted memory per GPU "
                     "and speed with their uncertainty, and what the engine reports at start.</p>")
             .arg(esc(target->what));
    const std::string kind = target->scenario.mode == gp::Mode::Training ? "training" : "serving";
    for (const auto& id : gp::engineIds()) {
        const gp::EngineSpec& e = gp::engineSpec(id);
        if (e.kind != kind)
            continue;
        h += QStringLiteral("<p><b>%1</b> <span class='muted'>(%2)</span></p>").arg(esc(e.name), esc(e.version));
        try {
            const gp::LaunchFiles files = gp::generateLaunch(*target, id, calibration);
            for (const auto& c : files.commands)
                h += QStringLiteral("<pre>%1</pre>").arg(esc(c));
        } catch (const gp::InputError& err) {
            QString why;
            for (const auto& d : err.problems())
                why += esc(d.message);
            h += QObject::tr("<p class='warn'>Not for this option: %1</p>").arg(why);
        }
    }
    return h;
}

} // namespace gp::ui
