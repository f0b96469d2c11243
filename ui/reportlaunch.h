#pragma once
// The report's appendix: the commands `gpuplanner-cli launch` writes for the
// recommended plan option, for every engine of the workload's kind (or the reason
// an engine cannot run it).
#include <QString>

namespace gp {
class Catalog;
struct Calibration;
struct PlanResult;
struct Scenario;
}

namespace gp::ui {

/// HTML (an <h2> section) for the plan's option 1, or the scenario as it stands
/// when there is no plan and it names one GPU; "" when there is nothing to launch.
QString launchAppendixHtml(const gp::Scenario& s, const gp::PlanResult* plan, const gp::Catalog& catalog,
                           const gp::Calibration* calibration);

} // namespace gp::ui
