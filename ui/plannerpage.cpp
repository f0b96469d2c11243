#include "plannerpage.h"

#include "estimatecontroller.h"
#include "format.h"
#include "launchdialog.h"
#include "palette.h"
#include "plancontroller.h"
#include "plantablemodel.h"
#include "reportrecommendation.h"

#include "charts/plannercharts.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QShowEvent>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <optional>

namespace gp::ui {

using Field = ScenarioModel::Field;

namespace {

template <typename E, typename... Values>
std::optional<int> enumFromString(const std::string& s, Values... values)
{
    for (const E v : {values...})
        if (gp::toString(v) == s)
            return static_cast<int>(v);
    return std::nullopt;
}

std::optional<int> trainPrecision(const std::string& s)
{
    using P = gp::TrainPrecision;
    return enumFromString<P>(s, P::FP32, P::TF32, P::AmpBF16, P::AmpFP16, P::BF16, P::FP8);
}

std::optional<int> inferPrecision(const std::string& s)
{
    using P = gp::InferPrecision;
    return enumFromString<P>(s, P::FP32, P::FP16, P::BF16, P::FP8, P::INT8, P::INT4, P::FP4);
}

std::optional<int> checkpointing(const std::string& s)
{
    using C = gp::Checkpointing;
    return enumFromString<C>(s, C::None, C::Selective, C::Full);
}

} // namespace

std::vector<std::pair<Field, QVariant>> planOptionEdits(const gp::PlanOption& o, gp::Mode mode)
{
    std::vector<std::pair<Field, QVariant>> edits;
    edits.emplace_back(Field::Mode, static_cast<int>(mode));
    edits.emplace_back(Field::Gpus, QStringList{QString::fromStdString(o.gpu)});
    edits.emplace_back(Field::Mig, QString::fromStdString(o.mig)); // "" (whole GPUs) clears an earlier slice
    // Layout before count would leave count < tp x pp in between; the order
    // does not matter for the result, only for the problems shown meanwhile.
    edits.emplace_back(Field::Count, o.count);
    edits.emplace_back(Field::Tp, o.tp);
    edits.emplace_back(Field::Pp, o.pp);
    edits.emplace_back(Field::Zero, o.zero);
    if (mode == gp::Mode::Training) {
        if (const auto p = trainPrecision(o.precision))
            edits.emplace_back(Field::TrainPrecision, *p);
        edits.emplace_back(Field::MicroBatch, o.microBatch);
        edits.emplace_back(Field::GradAccum, o.gradAccum);
        if (const auto c = checkpointing(o.checkpointing))
            edits.emplace_back(Field::Checkpointing, *c);
    } else {
        if (const auto p = inferPrecision(o.precision))
            edits.emplace_back(Field::InferPrecision, *p);
        // inference.batch is the demand the replicas share: it stays as it is
        // (the option's batch is one replica's share of it).
    }
    return edits;
}

bool applyPlanOption(ScenarioModel* model, const gp::PlanOption& o, gp::Mode mode)
{
    auto edits = planOptionEdits(o, mode);
    if (edits.empty())
        return false;
    // An HSDP shard group (hardware.shard_group) that does not divide the option's
    // data-parallel GPUs, or with ZeRO off, would leave the scenario invalid: the
    // option (estimated with full sharding then) drops it.
    const int group = model->scenario().hardware.shardGroup;
    const int dp = o.count / std::max(1, o.tp * o.pp);
    if (group > 0 && (o.zero == 0 || dp % group != 0))
        edits.emplace_back(Field::ShardGroup, QVariant());
    return model->setValues(QObject::tr("Use plan option #%1 (%2x %3)")
                                .arg(o.rank)
                                .arg(o.count)
                                .arg(QString::fromStdString(o.gpuName)),
                            edits);
}

PlannerPage::PlannerPage(ScenarioModel* model, PlanController* controller, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_controller(controller)
    , m_table(new PlanTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    // The page scrolls when the window is shorter than it can be read at (a
    // 1024x600 screen): squeezed below that, the chart and its caption overlapped.
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* inner = new QWidget;
    inner->setMinimumHeight(34 * fontMetrics().lineSpacing());
    auto* layout = new QVBoxLayout(inner);

    auto* bar = new QHBoxLayout;
    auto* scopeLabel = new QLabel(tr("&Search:"));
    m_scope = new QComboBox;
    m_scope->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_scope->setMinimumContentsLength(12); // the page fits a 1024-px window beside the form
    m_scope->addItem(tr("The scenario's GPUs (all when none ticked)"), static_cast<int>(PlanController::Scope::Scenario));
    m_scope->addItem(tr("The whole catalog"), static_cast<int>(PlanController::Scope::WholeCatalog));
    m_scope->setToolTip(tr("Which GPU types the planner tries; it always searches counts, layouts, formats and "
                           "batch sizes"));
    scopeLabel->setBuddy(m_scope);
    connect(m_scope, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_controller->setScope(static_cast<PlanController::Scope>(m_scope->itemData(i).toInt()));
    });
    m_planNow = new QPushButton(tr("&Plan now"));
    m_planNow->setToolTip(tr("Plans again now (it also re-plans by itself after each edit while this tab is shown)"));
    connect(m_planNow, &QPushButton::clicked, m_controller, &PlanController::schedule);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // How sure the ranked options must be (hardware.confidence): the planner keeps
    // those that fit and meet the targets with this probability, at the cost they
    // stay under with it.
    auto* confidenceLabel = new QLabel(tr("&Confidence:"));
    m_confidence = new QComboBox;
    m_confidence->setAccessibleName(ScenarioModel::label(Field::Confidence));
    m_confidence->setToolTip(tr("Keep options that fit and meet the targets with at least this probability, ranked on "
                                "the cost they stay under with it (saved in the scenario as hardware.confidence)"));
    for (const double p : {0.5, 0.8, 0.9, 0.95, 0.99})
        m_confidence->addItem(p == 0.5 ? tr("50% (point estimates)") : QStringLiteral("%1%").arg(p * 100), p);
    confidenceLabel->setBuddy(m_confidence);
    connect(m_confidence, &QComboBox::activated, this, [this](int i) {
        if (i >= 0)
            m_model->setValue(Field::Confidence, m_confidence->itemData(i).toDouble());
    });
    connect(m_model, &ScenarioModel::changed, this, &PlannerPage::showConfidence);
    bar->addWidget(scopeLabel);
    bar->addWidget(m_scope);
    bar->addWidget(confidenceLabel);
    bar->addWidget(m_confidence);
    bar->addWidget(m_planNow);
    bar->addStretch(1);
    layout->addLayout(bar);
    // On its own line: beside the controls it wrapped into a column of single
    // words in a 1366-px window.
    layout->addWidget(m_status);

    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    m_proxy->setSourceModel(m_table);
    m_proxy->setSortRole(PlanTableModel::SortRole);
    m_view = new QTableView;
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(PlanTableModel::RankColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setAccessibleName(tr("Plan options, ranked"));
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        if (i.isValid())
            useOption(m_proxy->mapToSource(i).row());
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &PlannerPage::selectionChanged);

    m_why = new QLabel;
    m_why->setWordWrap(true);
    m_why->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_use = new QPushButton(tr("&Use this option"));
    m_use->setToolTip(tr("Load the GPU, count, layout, precision and batch into the scenario (one undo step: "
                         "Ctrl+Z restores the previous scenario). Double-clicking a row does the same."));
    m_use->setEnabled(false);
    connect(m_use, &QPushButton::clicked, this, [this] { useOption(selectedRow()); });
    m_launch = new QPushButton(tr("&Launch files..."));
    m_launch->setToolTip(tr("Write the commands and config files that run this option on vLLM, SGLang, TensorRT-LLM "
                            "(serving) or torchrun/FSDP, DeepSpeed, accelerate, torchtune (training)"));
    m_launch->setEnabled(false);
    connect(m_launch, &QPushButton::clicked, this, [this] { launchFiles(selectedRow()); });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        const QModelIndex i = m_view->indexAt(at);
        if (!i.isValid())
            return;
        const int row = m_proxy->mapToSource(i).row();
        QMenu menu(this);
        menu.addAction(tr("&Use this option"), this, [this, row] { useOption(row); });
        menu.addAction(tr("&Launch files..."), this, [this, row] { launchFiles(row); });
        menu.exec(m_view->viewport()->mapToGlobal(at));
    });
    auto* whyRow = new QHBoxLayout;
    // The pick's explanation can be long (noise, capped parallelism): it scrolls
    // rather than squeezing the table to one row or being cut off.
    auto* whyScroll = new QScrollArea;
    whyScroll->setWidget(m_why);
    whyScroll->setWidgetResizable(true);
    whyScroll->setFrameShape(QFrame::NoFrame);
    whyScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    whyScroll->setMaximumHeight(6 * fontMetrics().lineSpacing());
    whyScroll->setMinimumHeight(2 * fontMetrics().lineSpacing());
    whyRow->addWidget(whyScroll, 1);
    whyRow->addWidget(m_use, 0, Qt::AlignTop);
    whyRow->addWidget(m_launch, 0, Qt::AlignTop);

    auto* upper = new QWidget;
    auto* ul = new QVBoxLayout(upper);
    ul->setContentsMargins(0, 0, 0, 0);
    ul->addWidget(m_view, 1);
    ul->addLayout(whyRow);

    m_chart = new charts::ChartView(tr("Plan: cost vs time"));
    // Short: a long word-wrapped caption ran over the chart's axis in a 600-px-high window.
    m_chart->setCaption(tr("Ringed: the Pareto front (nothing both cheaper and faster)."));
    m_chart->setToolTip(tr("Each point is an option; the ringed ones form the Pareto front (no other option is "
                           "both cheaper and faster)."));

    auto* side = new QWidget;
    auto* sl = new QVBoxLayout(side);
    sl->setContentsMargins(0, 0, 0, 0);
    sl->addWidget(new QLabel(tr("<b>Popular alternatives that lost</b>")));
    m_alternatives = new QTextBrowser;
    m_alternatives->setAccessibleName(tr("Popular alternatives that lost"));
    m_alternatives->setOpenLinks(false);
    sl->addWidget(m_alternatives, 2);
    sl->addWidget(new QLabel(tr("<b>Notes</b>")));
    m_notes = new QLabel;
    m_notes->setWordWrap(true);
    m_notes->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->setAccessibleName(tr("Plan notes"));
    // Notes can run to several paragraphs (capped data parallelism, unpriced GPUs):
    // they scroll instead of being cut off at the bottom of a small window.
    auto* notesScroll = new QScrollArea;
    notesScroll->setWidget(m_notes);
    notesScroll->setWidgetResizable(true);
    notesScroll->setFrameShape(QFrame::NoFrame);
    notesScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    sl->addWidget(notesScroll, 1);

    auto* lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(m_chart);
    lower->addWidget(side);
    lower->setStretchFactor(0, 3);
    lower->setStretchFactor(1, 2);
    lower->setChildrenCollapsible(false);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(upper);
    split->addWidget(lower);
    // Even shares: the ranked table keeps five rows in a 768-px-high window, and
    // both halves still shrink to fit a 600-px one (no minimum height forced).
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    scroll->setWidget(inner);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Scroll up and down only: the page keeps the width its controls need, so the
    // window's splitter never cuts "Plan now" or "Launch files..." off.
    scroll->setMinimumWidth(inner->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
    outer->addWidget(scroll);

    connect(m_controller, &PlanController::planChanged, this, &PlannerPage::showPlan);
    connect(m_controller, &PlanController::runningChanged, this, &PlannerPage::showRunning);
    showConfidence();
    showPlan();
}

void PlannerPage::showConfidence()
{
    const double p = m_model->scenario().hardware.confidence;
    int i = -1;
    for (int k = 0; k < m_confidence->count(); ++k)
        if (std::fabs(m_confidence->itemData(k).toDouble() - p) < 1e-9)
            i = k;
    if (i < 0) { // a value from a file: offer it as it is
        m_confidence->addItem(QStringLiteral("%1%").arg(formatNumber(p * 100, 4)), p);
        i = m_confidence->count() - 1;
    }
    const QSignalBlocker block(m_confidence);
    m_confidence->setCurrentIndex(i);
}

PlannerPage::~PlannerPage() = default;

void PlannerPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    m_controller->setActive(true);
}

void PlannerPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_controller->setActive(false);
}

void PlannerPage::setCurrency(const QString& symbol)
{
    m_currency = symbol;
    m_table->setCurrency(symbol);
    showPlan();
}

void PlannerPage::showRunning(bool running)
{
    if (running)
        m_status->setText(tr("Planning…"));
    m_planNow->setEnabled(!running);
}

void PlannerPage::showPlan()
{
    const gp::PlanResult& plan = m_controller->result();
    const gp::Mode mode = m_controller->plannedScenario().mode;
    // Keep the selected option selected across re-plans.
    std::optional<gp::PlanOption> selected;
    if (const auto* o = m_table->option(selectedRow()))
        selected = *o;
    m_table->setPlan(plan, mode);
    // Replicas and users per replica are inference figures.
    m_view->setColumnHidden(PlanTableModel::ReplicasColumn, mode != gp::Mode::Inference);
    m_view->setColumnHidden(PlanTableModel::UsersColumn, mode != gp::Mode::Inference);

    const QString error = m_controller->error();
    if (!error.isEmpty()) {
        m_status->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                              .arg(statusColor(Status::Bad).name(),
                                   htmlEscape(tr("No plan: %1").arg(error)).replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    } else if (m_controller->hasResult()) {
        m_status->setText(tr("%1 configurations estimated, %2 fit and meet the targets with %3% confidence (%4 ms).")
                              .arg(formatNumber(static_cast<double>(plan.considered), 6))
                              .arg(formatNumber(static_cast<double>(plan.feasible), 6))
                              .arg(formatNumber(plan.confidence * 100, 3))
                              .arg(formatNumber(m_controller->lastRunMs(), 2)));
    } else {
        m_status->setText(tr("Not planned yet."));
    }

    if (plan.options.empty()) {
        m_summary->setText(m_controller->hasResult()
                               ? (m_controller->suggestion().isEmpty()
                                      ? tr("<b>No option fits and meets the targets.</b> Relax a target, allow more "
                                           "GPUs (hardware max count), or search the whole catalog.")
                                      : tr("<b>No option fits and meets the targets.</b> %1")
                                            .arg(htmlEscape(m_controller->suggestion())))
                               : QString());
    } else {
        const auto& best = plan.options.front();
        QString serving;
        if (mode == gp::Mode::Inference && best.usersPerReplica > 0)
            serving = tr(" %1 replica(s) x %2 users; one replica holds %3 (limit: %4).")
                          .arg(best.replicas)
                          .arg(best.microBatch)
                          .arg(best.usersPerReplica)
                          .arg(planLimitText(best.limit));
        m_summary->setText(tr("<b>Best:</b> %1x %2 (%3, %4, %5) — %6: %7; %8: %9.")
                               .arg(best.count * best.replicas)
                               .arg(htmlEscape(QString::fromStdString(best.gpuName)), htmlEscape(planLayoutText(best)),
                                    htmlEscape(QString::fromStdString(best.precision)), htmlEscape(planBatchText(best, mode)),
                                    htmlEscape(QString::fromStdString(plan.costLabel)), formatMoney(best.costKey, m_currency),
                                    htmlEscape(QString::fromStdString(plan.timeLabel)), formatNumber(best.timeKey, 3)) +
                           htmlEscape(serving) + QStringLiteral(" ") +
                           htmlEscape(tr("How sure: %1.").arg(planConfidenceText(best, plan.confidence))));
    }

    m_chart->setChart(charts::buildPlanChart(plan, charts::ChartOptions{m_currency, false, charts::kMaxGpus}));

    QString alt;
    for (const auto& a : plan.alternatives) {
        // The GPU's name as the table shows it (its catalog id where the catalog lacks it).
        const gp::Gpu* g = m_controller->estimates()->catalog().find(a.gpu);
        alt += QStringLiteral("<p style='margin-bottom:4px'><b>%1</b>: %2</p>")
                   .arg(htmlEscape(QString::fromStdString(g ? g->name : a.gpu)), htmlEscape(QString::fromStdString(a.why)));
    }
    if (plan.alternatives.empty() && m_controller->hasResult())
        alt = m_controller->scope() == PlanController::Scope::Scenario && !m_controller->plannedScenario().hardware.gpus.empty()
                  ? tr("<i>Only the scenario's ticked GPUs were searched; search the whole catalog to see how the "
                       "popular ones compare.</i>")
                  : tr("<i>Every popular GPU searched made the list.</i>");
    m_alternatives->setHtml(alt);

    QStringList notes;
    for (const auto& o : plan.apart) // cheaper, but need what the scenario does not allow
        notes << QStringLiteral("• ") + htmlEscape(tr("Not ranked: %1").arg(QString::fromStdString(o.why)));
    for (const auto& n : plan.notes)
        notes << QStringLiteral("• ") + htmlEscape(QString::fromStdString(n));
    if (m_controller->hasResult())
        notes << tr("• Ranked by %1, then %2. Options beyond the top %3 are listed when on the Pareto front.")
                     .arg(htmlEscape(QString::fromStdString(plan.costLabel)),
                          htmlEscape(QString::fromStdString(plan.timeLabel)))
                     .arg(m_controller->top());
    m_notes->setText(notes.join(QStringLiteral("<br>")));

    if (!m_sized && m_table->rowCount() > 0) {
        m_view->resizeColumnsToContents();
        m_view->setColumnWidth(PlanTableModel::WhyColumn, 400);
        m_sized = true;
    }
    const int row = selected ? m_table->rowOf(*selected) : -1;
    if (row >= 0)
        m_view->setCurrentIndex(m_proxy->mapFromSource(m_table->index(row, 0)));
    else if (m_proxy->rowCount() > 0)
        m_view->setCurrentIndex(m_proxy->index(0, 0));
    selectionChanged();
}

int PlannerPage::selectedRow() const
{
    const QModelIndex cur = m_view->currentIndex();
    return cur.isValid() ? m_proxy->mapToSource(cur).row() : -1;
}

void PlannerPage::selectionChanged()
{
    const gp::PlanOption* o = m_table->option(selectedRow());
    if (!o) {
        m_why->clear();
        m_use->setEnabled(false);
        m_launch->setEnabled(false);
        return;
    }
    m_why->setText(tr("<b>#%1:</b> %2").arg(o->rank).arg(htmlEscape(QString::fromStdString(o->why))));
    m_use->setEnabled(true);
    m_launch->setEnabled(o->fits);
    m_use->setToolTip(tr("Load the GPU, count, layout (or MIG slice), precision and batch into the scenario (one undo "
                         "step: Ctrl+Z restores the previous scenario). Double-clicking a row does the same."));
}

bool PlannerPage::useOption(int modelRow)
{
    const gp::PlanOption* o = m_table->option(modelRow);
    if (!o)
        return false;
    const gp::PlanOption copy = *o; // the table is replaced when the plan recomputes
    const gp::Mode mode = m_controller->plannedScenario().mode;
    if (!applyPlanOption(m_model, copy, mode)) {
        emit message(tr("The scenario already is option #%1.").arg(copy.rank));
        return false;
    }
    QString text = tr("Loaded option #%1 into the scenario: %2x %3, %4, %5 (Ctrl+Z undoes).")
                       .arg(copy.rank)
                       .arg(copy.count)
                       .arg(QString::fromStdString(copy.gpuName), planLayoutText(copy),
                            QString::fromStdString(copy.precision));
    if (mode == gp::Mode::Inference && copy.replicas > 1)
        text += tr(" The demand needs %1 such replicas of %2 concurrent sequences each; the scenario keeps the "
                   "total.")
                    .arg(copy.replicas)
                    .arg(copy.microBatch);
    emit message(text);
    return true;
}

LaunchDialog* PlannerPage::launchFiles(int modelRow)
{
    const gp::PlanOption* o = m_table->option(modelRow);
    if (!o)
        return nullptr;
    const gp::PlanOption copy = *o; // the table is replaced when the plan recomputes
    EstimateController* e = m_controller->estimates();
    return openLaunchDialog(this, m_controller->plannedScenario(), &copy, e->catalog(), e->calibration());
}

} // namespace gp::ui
