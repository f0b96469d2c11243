#pragma once
#include <QComboBox>
#include <QString>
#include <QStringList>

#include <vector>

class QCompleter;
class QStandardItemModel;
class QStringListModel;

namespace gp::ui {

/// A GPU chooser for long catalogs: the GPUs grouped under their market tier
/// (consumer first, frontier last; unknown ids under "Other"), sorted by name
/// within a tier, and searchable: typing filters by any part of the name.
class GpuPicker final : public QComboBox
{
    Q_OBJECT
public:
    struct Entry {
        QString id;
        QString name;
        int tier = -1; // gp::Tier as int; -1 = not in the catalog
    };
    enum Role { IdRole = Qt::UserRole + 1, HeaderRole };

    explicit GpuPicker(QWidget* parent = nullptr);

    /// Replaces the choices; allowNone adds "(none)" first. Keeps the current id when it is still there.
    void setEntries(std::vector<Entry> entries, bool allowNone);
    /// The chosen GPU's id; empty for "(none)" or no choice.
    QString currentId() const;
    /// Chooses a GPU by id (empty: "(none)" when allowed); false when it is not a choice.
    bool setCurrentId(const QString& id);
    /// The names the search offers for a piece of text (case-insensitive, any part of the name).
    QStringList matches(const QString& text) const;
    /// Heading shown above a tier's GPUs ("Consumer", ..., "Other").
    static QString tierHeading(int tier);

signals:
    void idChanged(const QString& id);

private:
    void selectByText(const QString& text);
    void restoreText();

    QStandardItemModel* m_items;
    QStringListModel* m_names;
    QCompleter* m_completer;
    bool m_filling = false;
};

} // namespace gp::ui
