#include "hardwaregroup.h"

#include "formbinder.h"

#include "ui/format.h"

#include "core/hardware/catalog.h"
#include "core/hardware/mig.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSet>
#include <QVBoxLayout>

namespace gp::ui {

using Field = ScenarioModel::Field;

namespace {

constexpr int kIdRole = Qt::UserRole;

} // namespace

HardwareGroup::HardwareGroup(FormBinder* binder, QWidget* parent)
    : QGroupBox(tr("Hardware"), parent)
    , m_binder(binder)
    , m_model(binder->model())
{
    auto* v = new QVBoxLayout(this);
    auto* filters = new QHBoxLayout;
    m_vendorFilter = new QComboBox;
    // Short combos: the form fits a narrow window (1024x600, 1.5x scaling).
    m_vendorFilter->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_vendorFilter->setMinimumContentsLength(6);
    m_vendorFilter->setAccessibleName(tr("Vendor filter"));
    m_vendorFilter->setToolTip(tr("Show only this vendor's GPUs in the list"));
    m_tierFilter = new QComboBox;
    m_tierFilter->setAccessibleName(tr("Tier filter"));
    m_tierFilter->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tierFilter->setMinimumContentsLength(6);
    m_tierFilter->setToolTip(tr("Show only this market tier in the list"));
    m_tierFilter->addItem(tr("All tiers"), -1);
    for (const auto t : {gp::Tier::Consumer, gp::Tier::Workstation, gp::Tier::InferenceDatacenter,
                         gp::Tier::TrainingDatacenter, gp::Tier::Frontier})
        m_tierFilter->addItem(QString::fromUtf8(gp::tierLabel(t).data(), static_cast<qsizetype>(gp::tierLabel(t).size())),
                              static_cast<int>(t));
    m_gpuSearch = new QLineEdit;
    m_gpuSearch->setPlaceholderText(tr("Search GPUs"));
    m_gpuSearch->setAccessibleName(tr("Search GPUs"));
    m_gpuSearch->setClearButtonEnabled(true);
    filters->addWidget(m_vendorFilter);
    filters->addWidget(m_tierFilter);
    filters->addWidget(m_gpuSearch, 1);
    v->addLayout(filters);
    connect(m_vendorFilter, &QComboBox::currentIndexChanged, this, &HardwareGroup::refreshGpuFilter);
    connect(m_tierFilter, &QComboBox::currentIndexChanged, this, &HardwareGroup::refreshGpuFilter);
    connect(m_gpuSearch, &QLineEdit::textChanged, this, &HardwareGroup::refreshGpuFilter);

    m_gpuList = new QListWidget;
    m_gpuList->setAccessibleName(tr("GPUs to consider"));
    m_gpuList->setToolTip(tr("Tick the GPUs to compare; none ticked = the whole catalog"));
    m_gpuList->setMinimumHeight(150);
    m_gpuList->setUniformItemSizes(true);
    connect(m_gpuList, &QListWidget::itemChanged, this, [this] {
        if (!m_binder->isUpdating())
            gpuItemChanged();
    });
    v->addWidget(m_gpuList);
    m_binder->bind(Field::Gpus, m_gpuList, [this](const QVariant& val) {
        const QStringList ids = val.toStringList();
        const QSet<QString> set(ids.begin(), ids.end());
        for (int i = 0; i < m_gpuList->count(); ++i) {
            auto* item = m_gpuList->item(i);
            item->setCheckState(set.contains(item->data(kIdRole).toString()) ? Qt::Checked : Qt::Unchecked);
        }
        m_gpuNote->setText(ids.isEmpty() ? tr("None ticked: every GPU in the catalog (%1) is considered.").arg(m_catalogSize)
                                         : tr("%1 of %2 GPUs ticked.").arg(ids.size()).arg(m_catalogSize));
        updateMigNote();
    });
    auto* buttons = new QHBoxLayout;
    m_gpuNote = new QLabel;
    m_gpuNote->setWordWrap(true);
    auto* tickShown = new QPushButton(tr("Tick shown"));
    tickShown->setToolTip(tr("Tick every GPU the filters show"));
    auto* clear = new QPushButton(tr("Clear"));
    clear->setToolTip(tr("Untick all (= consider the whole catalog)"));
    connect(tickShown, &QPushButton::clicked, this, [this] {
        QStringList ids = m_model->value(Field::Gpus).toStringList();
        QSet<QString> ticked(ids.begin(), ids.end()); // a user catalog can hold a thousand GPUs
        for (int i = 0; i < m_gpuList->count(); ++i) {
            auto* item = m_gpuList->item(i);
            const QString id = item->data(kIdRole).toString();
            if (!item->isHidden() && !ticked.contains(id)) {
                ids << id;
                ticked.insert(id);
            }
        }
        m_model->setGpus(ids);
    });
    connect(clear, &QPushButton::clicked, this, [this] { m_model->setGpus({}); });
    buttons->addWidget(m_gpuNote, 1);
    buttons->addWidget(tickShown);
    buttons->addWidget(clear);
    v->addLayout(buttons);

    auto* form = m_binder->newForm();
    form->addRow(ScenarioModel::label(Field::Count), m_binder->number(Field::Count, tr("GPUs in one job")));
    auto* par = new QHBoxLayout;
    auto* tpSpin = m_binder->number(Field::Tp, tr("Tensor-parallel degree (splits each layer)"));
    auto* ppSpin = m_binder->number(Field::Pp, tr("Pipeline-parallel degree (splits the layer stack)"));
    auto* zero = m_binder->enumCombo(Field::Zero,
                           {{tr("ZeRO off"), 0}, {tr("ZeRO-1 (states)"), 1}, {tr("ZeRO-2 (+ grads)"), 2},
                            {tr("ZeRO-3 / FSDP (+ weights)"), 3}},
                           tr("Shard optimizer states / gradients / weights across data-parallel GPUs"));
    par->addWidget(new QLabel(tr("TP")));
    par->addWidget(tpSpin);
    par->addWidget(new QLabel(tr("PP")));
    par->addWidget(ppSpin);
    form->addRow(tr("Parallelism"), par);
    form->addRow(tr("ZeRO"), zero); // its own row: the form fits a narrow window
    auto* maxCount = m_binder->number(Field::MaxCount,
                            tr("The planner tries GPU counts in powers of two up to this (consumer and "
                                "workstation cards: one 8-GPU box at most)"));
    form->addRow(ScenarioModel::label(Field::MaxCount), maxCount);
    auto* net = m_binder->number(Field::NetworkGbps,
                       tr("Bandwidth between nodes per GPU in Gbit/s (400 = NDR InfiniBand, 100 = typical "
                          "Ethernet); data-parallel and FSDP traffic beyond one node crosses it"),
                       100);
    form->addRow(ScenarioModel::label(Field::NetworkGbps), net);
    m_mig = new QComboBox;
    m_mig->setAccessibleName(ScenarioModel::label(Field::Mig));
    m_mig->setToolTip(tr("Run the job on one MIG instance of one GPU (GPUs per job = 1). A100, H100, H200, B200, B300: "
                         "1g = 1/7 of the SMs and 1/8 of the memory, 2g = 2/7 and 2/8, 3g = 3/7 and 4/8, 4g = 4/7 "
                         "and 4/8, 7g = all (NVIDIA MIG user guide); A30 and RTX PRO 6000: 1g, 2g, 4g = 1/4, 2/4, all. "
                         "A slice is billed as its share of the SMs."));
    m_mig->addItem(tr("Whole GPU (no MIG)"), QString());
    for (const std::string_view name : gp::migProfileNames()) {
        const QString n = QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
        m_mig->addItem(tr("%1 slice").arg(n), n);
    }
    connect(m_mig, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!m_binder->isUpdating() && i >= 0)
            m_model->setValue(Field::Mig, m_mig->itemData(i).toString());
    });
    m_binder->bind(Field::Mig, m_mig, [this](const QVariant& val) {
        m_mig->setCurrentIndex(std::max(0, m_mig->findData(val.toString())));
        updateMigNote();
    });
    m_migNote = new QLabel;
    m_migNote->setWordWrap(true);
    m_migNote->setVisible(false);
    auto* migBox = new QVBoxLayout;
    migBox->addWidget(m_mig);
    migBox->addWidget(m_migNote);
    form->addRow(ScenarioModel::label(Field::Mig), migBox);

    // The planner's choices (issue #16): the formats it may use, GeForce cards
    // for serving, and the confidence it ranks at.
    m_precisionBox = new QWidget;
    m_precisionBox->setToolTip(tr("The precisions the planner may choose; none ticked = the workload's own. Cheaper "
                                  "options at other precisions are listed apart, with their saving."));
    auto* precisionLayout = new QHBoxLayout(m_precisionBox);
    precisionLayout->setContentsMargins(0, 0, 0, 0);
    m_binder->bind(Field::Precisions, m_precisionBox, [this](const QVariant& val) {
        rebuildPrecisions();
        const QStringList l = val.toStringList();
        for (auto* c : m_precisionTicks)
            c->setChecked(l.contains(c->text()));
    });
    form->addRow(ScenarioModel::label(Field::Precisions), m_precisionBox);
    auto* consumer = new QCheckBox(tr("Rank GeForce cards for serving"));
    consumer->setToolTip(tr("GeForce cards' driver licence excludes data centres: the planner ranks them for serving "
                            "only when allowed here or ticked in the GPU list (always for training)"));
    connect(consumer, &QCheckBox::toggled, this, [this](bool on) {
        if (!m_binder->isUpdating())
            m_model->setValue(Field::Consumer, on);
    });
    m_binder->bind(Field::Consumer, consumer, [consumer](const QVariant& val) { consumer->setChecked(val.toBool()); });
    form->addRow(ScenarioModel::label(Field::Consumer), consumer);
    form->addRow(ScenarioModel::label(Field::Confidence),
                 m_binder->number(Field::Confidence,
                                  tr("The planner keeps options that fit and meet the targets with at least this "
                                     "probability, and ranks them on the cost they stay under with it"),
                                  0.05));
    connect(m_model, &ScenarioModel::fieldChanged, this, [this](ScenarioModel::Field f) {
        if (f == Field::Mode)
            m_binder->showField(Field::Precisions);
    });
    v->addLayout(form);
}

void HardwareGroup::rebuildPrecisions()
{
    const int mode = static_cast<int>(m_model->scenario().mode);
    if (mode == m_precisionMode)
        return;
    m_precisionMode = mode;
    for (auto* c : m_precisionTicks)
        delete c;
    m_precisionTicks.clear();
    const bool training = m_model->scenario().mode == gp::Mode::Training;
    const std::vector<const char*> names =
        training ? std::vector<const char*>{"fp32", "tf32", "amp_bf16", "amp_fp16", "bf16", "fp8"}
                 : std::vector<const char*>{"fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"};
    auto* layout = qobject_cast<QHBoxLayout*>(m_precisionBox->layout());
    while (layout->count() > 0)
        delete layout->takeAt(0);
    for (const char* name : names) {
        auto* cb = new QCheckBox(QString::fromLatin1(name));
        cb->setAccessibleName(tr("Planner precision %1").arg(QString::fromLatin1(name)));
        connect(cb, &QCheckBox::toggled, this, [this] {
            if (m_binder->isUpdating())
                return;
            QStringList ticked;
            for (auto* c : m_precisionTicks)
                if (c->isChecked())
                    ticked << c->text();
            m_model->setValue(Field::Precisions, ticked);
        });
        layout->addWidget(cb);
        m_precisionTicks.push_back(cb);
    }
    layout->addStretch(1);
}

void HardwareGroup::setCatalog(const gp::Catalog& catalog)
{
    m_binder->setUpdating(true);
    const QString vendor = m_vendorFilter->currentData().toString();
    m_vendorFilter->clear();
    m_vendorFilter->addItem(tr("All vendors"), QString());
    QStringList vendors;
    for (const auto& g : catalog.gpus())
        if (!vendors.contains(QString::fromStdString(g.vendor)))
            vendors << QString::fromStdString(g.vendor);
    vendors.sort();
    for (const auto& v : vendors)
        m_vendorFilter->addItem(v, v);
    m_vendorFilter->setCurrentIndex(std::max(0, m_vendorFilter->findData(vendor)));

    m_gpuList->clear();
    for (const auto& g : catalog.gpus()) {
        const auto tier = gp::tierLabel(g.tier);
        auto* item = new QListWidgetItem(QStringLiteral("%1 — %2 GB, %3%4")
                                             .arg(QString::fromStdString(g.name), formatNumber(g.memoryGb))
                                             .arg(QString::fromUtf8(tier.data(), static_cast<qsizetype>(tier.size())))
                                             .arg(g.userDefined ? tr(" (edited)") : QString()));
        item->setData(kIdRole, QString::fromStdString(g.id));
        item->setData(Qt::UserRole + 1, QString::fromStdString(g.vendor));
        item->setData(Qt::UserRole + 2, static_cast<int>(g.tier));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
        item->setCheckState(Qt::Unchecked);
        item->setToolTip(tr("%1 (%2)\n%3 GB %4, %5 GB/s\nBF16 %6 TFLOPS dense\n%7/h typical rental (seen %8)")
                             .arg(QString::fromStdString(g.name), QString::fromStdString(g.id), formatNumber(g.memoryGb),
                                  QString::fromStdString(g.memoryType), formatNumber(g.bandwidthGbps),
                                  formatNumber(g.bf16Tflops), formatMoney(g.pricePerHour.typical),
                                  QString::fromStdString(g.pricePerHour.seen)));
        m_gpuList->addItem(item);
    }
    m_migProfiles.clear();
    for (const auto& g : catalog.gpus()) {
        QStringList names;
        for (const auto& p : gp::migProfiles(g))
            names << QString::fromLatin1(p.name.data(), static_cast<qsizetype>(p.name.size()));
        if (!names.isEmpty())
            m_migProfiles.insert(QString::fromStdString(g.id), names);
    }
    // A slice picked with no GPU ticked ticks the GPUs that have it, in catalog
    // order (ScenarioModel::dependentEdits).
    std::vector<std::pair<QString, QStringList>> ordered;
    for (const auto& g : catalog.gpus())
        if (m_migProfiles.contains(QString::fromStdString(g.id)))
            ordered.emplace_back(QString::fromStdString(g.id), m_migProfiles.value(QString::fromStdString(g.id)));
    m_model->setMigGpuLookup([ordered](const QString& slice) {
        QStringList ids;
        for (const auto& [id, names] : ordered)
            if (names.contains(slice))
                ids << id;
        return ids;
    });
    m_catalogSize = static_cast<int>(catalog.gpus().size());
    m_binder->setUpdating(false);
    m_binder->showField(Field::Gpus);
    refreshGpuFilter();
}

void HardwareGroup::refreshGpuFilter()
{
    const QString vendor = m_vendorFilter->currentData().toString();
    const int tier = m_tierFilter->currentData().toInt();
    const QString text = m_gpuSearch->text().trimmed();
    for (int i = 0; i < m_gpuList->count(); ++i) {
        auto* item = m_gpuList->item(i);
        const bool show = (vendor.isEmpty() || item->data(Qt::UserRole + 1).toString() == vendor) &&
                          (tier < 0 || item->data(Qt::UserRole + 2).toInt() == tier) &&
                          (text.isEmpty() || item->text().contains(text, Qt::CaseInsensitive) ||
                           item->data(kIdRole).toString().contains(text, Qt::CaseInsensitive));
        item->setHidden(!show);
    }
}

void HardwareGroup::gpuItemChanged()
{
    QStringList ids;
    for (int i = 0; i < m_gpuList->count(); ++i)
        if (m_gpuList->item(i)->checkState() == Qt::Checked)
            ids << m_gpuList->item(i)->data(kIdRole).toString();
    m_model->setGpus(ids);
}

void HardwareGroup::updateMigNote()
{
    if (!m_migNote)
        return; // the GPU list is shown before the MIG row exists
    const QString mig = m_model->value(Field::Mig).toString();
    QStringList lacking;
    if (!mig.isEmpty())
        for (const QString& id : m_model->value(Field::Gpus).toStringList())
            if (!m_migProfiles.value(id).contains(mig))
                lacking << id;
    m_migNote->setText(lacking.isEmpty() ? QString()
                                         : tr("No MIG %1 slice on %2: the estimate refuses it.").arg(mig, lacking.join(QStringLiteral(", "))));
    m_migNote->setVisible(!lacking.isEmpty());
}

} // namespace gp::ui
