#include "gpupicker.h"

#include "core/hardware/catalog.h"

#include <QCollator>
#include <QCompleter>
#include <QLineEdit>
#include <QStandardItemModel>
#include <QStringListModel>

#include <algorithm>
#include <string_view>

namespace gp::ui {

GpuPicker::GpuPicker(QWidget* parent)
    : QComboBox(parent)
    , m_items(new QStandardItemModel(this))
    , m_names(new QStringListModel(this))
    , m_completer(new QCompleter(m_names, this))
{
    setModel(m_items);
    setEditable(true);
    setInsertPolicy(QComboBox::NoInsert);
    setMaxVisibleItems(16); // a popup shorter than a 768-pixel screen
    lineEdit()->setPlaceholderText(tr("Type to search"));
    lineEdit()->setClearButtonEnabled(false);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setFilterMode(Qt::MatchContains);
    m_completer->setCompletionMode(QCompleter::PopupCompletion);
    m_completer->setMaxVisibleItems(12);
    setCompleter(m_completer);
    connect(m_completer, qOverload<const QString&>(&QCompleter::activated), this, &GpuPicker::selectByText);
    connect(lineEdit(), &QLineEdit::editingFinished, this, [this] {
        const QString text = lineEdit()->text().trimmed();
        const QStringList found = matches(text);
        // An exact name, or the only GPU the text names, is chosen; anything else reverts.
        if (const int i = findText(text, Qt::MatchFixedString); i >= 0 && !itemData(i, HeaderRole).toBool())
            setCurrentIndex(i);
        else if (found.size() == 1)
            selectByText(found.front());
        restoreText();
    });
    connect(this, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            emit idChanged(currentId());
    });
}

QString GpuPicker::tierHeading(int tier)
{
    if (tier < 0 || tier > static_cast<int>(gp::Tier::Frontier))
        return tr("Other");
    const std::string_view label = gp::tierLabel(static_cast<gp::Tier>(tier));
    return QString::fromLatin1(label.data(), static_cast<qsizetype>(label.size()));
}

void GpuPicker::setEntries(std::vector<Entry> entries, bool allowNone)
{
    const QString keep = currentId();
    QCollator collator;
    collator.setNumericMode(true);
    collator.setCaseSensitivity(Qt::CaseInsensitive);
    const auto tierKey = [](int t) { return t < 0 ? 1000 : t; }; // unknown ones last
    std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
        if (a.tier != b.tier)
            return tierKey(a.tier) < tierKey(b.tier);
        return collator.compare(a.name, b.name) < 0;
    });
    m_filling = true;
    m_items->clear();
    QStringList names;
    if (allowNone) {
        auto* none = new QStandardItem(tr("(none)"));
        none->setData(QString(), IdRole);
        m_items->appendRow(none);
    }
    int tier = -2;
    for (const Entry& e : entries) {
        if (e.tier != tier) {
            tier = e.tier;
            auto* heading = new QStandardItem(tierHeading(tier));
            heading->setData(true, HeaderRole);
            heading->setFlags(Qt::NoItemFlags); // a heading, not a choice
            QFont f = font();
            f.setBold(true);
            heading->setFont(f);
            m_items->appendRow(heading);
        }
        auto* item = new QStandardItem(e.name);
        item->setData(e.id, IdRole);
        item->setToolTip(e.id);
        m_items->appendRow(item);
        names << e.name;
    }
    m_names->setStringList(names);
    setCurrentIndex(-1);
    m_filling = false;
    if (!setCurrentId(keep))
        setCurrentId(QString());
}

QString GpuPicker::currentId() const
{
    return currentIndex() >= 0 ? itemData(currentIndex(), IdRole).toString() : QString();
}

bool GpuPicker::setCurrentId(const QString& id)
{
    for (int i = 0; i < count(); ++i)
        if (!itemData(i, HeaderRole).toBool() && itemData(i, IdRole).toString() == id &&
            (!id.isEmpty() || itemData(i, IdRole).isValid())) {
            setCurrentIndex(i);
            return true;
        }
    if (id.isEmpty())
        setCurrentIndex(-1);
    return false;
}

QStringList GpuPicker::matches(const QString& text) const
{
    QStringList out;
    for (const QString& name : m_names->stringList())
        if (name.contains(text, Qt::CaseInsensitive))
            out << name;
    return out;
}

void GpuPicker::selectByText(const QString& text)
{
    const int i = findText(text, Qt::MatchFixedString);
    if (i >= 0 && !itemData(i, HeaderRole).toBool())
        setCurrentIndex(i);
    restoreText();
}

void GpuPicker::restoreText()
{
    const QString want = currentIndex() >= 0 ? itemText(currentIndex()) : QString();
    if (lineEdit()->text() != want)
        lineEdit()->setText(want);
}

} // namespace gp::ui
