// Rules of thumb tab: every check of the core, with its verdict.
#include "ui/rulespage.h"
#include "ui/rulestablemodel.h"

#include "core/hardware/catalog.h"
#include "core/rules/rules.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QIcon>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <algorithm>

using namespace gp::ui;

class TestRules : public QObject
{
    Q_OBJECT
private slots:
    void modelShowsEveryCheck()
    {
        RulesTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(RulesTableModel::SortRole);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto rules = gp::checkRulesOfThumb(gp::Catalog::builtin());
        model.setRules(rules);
        QCOMPARE(model.rowCount(), static_cast<int>(rules.size()));
        QCOMPARE(model.columnCount(), static_cast<int>(RulesTableModel::ColumnCount));
        int corrected = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            const auto& want = rules[static_cast<std::size_t>(r)];
            QCOMPARE(model.index(r, RulesTableModel::ClaimColumn).data().toString(), QString::fromStdString(want.claim));
            QCOMPARE(model.index(r, RulesTableModel::FindingColumn).data().toString(), QString::fromStdString(want.finding));
            QCOMPARE(model.index(r, RulesTableModel::ReasonColumn).data().toString(), QString::fromStdString(want.reason));
            QCOMPARE(model.index(r, RulesTableModel::SourceColumn).data().toString(), QString::fromStdString(want.source));
            const QModelIndex v = model.index(r, RulesTableModel::VerdictColumn);
            QCOMPARE(v.data(RulesTableModel::VerdictRole).toString(), QString::fromStdString(want.verdict));
            QCOMPARE(v.data().toString(), verdictLabel(want.verdict));
            QVERIFY(v.data(Qt::ForegroundRole).isValid());
            corrected += want.verdict == "corrected";
        }
        QVERIFY(corrected >= 1);
        proxy.sort(RulesTableModel::VerdictColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, RulesTableModel::VerdictColumn).data(RulesTableModel::VerdictRole).toString(),
                 QStringLiteral("corrected"));
        model.setRules({});
        QCOMPARE(model.rowCount(), 0);
    }

    void pageComputesOnceAndFilters()
    {
        RulesPage page;
        QCOMPARE(page.model()->rowCount(), 0); // nothing until shown or asked
        page.show();
        const auto rules = gp::checkRulesOfThumb(gp::Catalog::builtin());
        QCOMPARE(page.model()->rowCount(), static_cast<int>(rules.size()));
        QCOMPARE(page.proxy()->rowCount(), static_cast<int>(rules.size()));
        const int corrected =
            static_cast<int>(std::count_if(rules.begin(), rules.end(), [](const auto& r) { return r.verdict == "corrected"; }));
        QVERIFY(corrected >= 1);
        page.verdictFilter()->setCurrentIndex(page.verdictFilter()->findData(QStringLiteral("corrected")));
        QCOMPARE(page.proxy()->rowCount(), corrected);
        page.verdictFilter()->setCurrentIndex(0);
        QCOMPARE(page.proxy()->rowCount(), static_cast<int>(rules.size()));
    }
};

QTEST_MAIN(TestRules)
#include "tst_rules.moc"
