// The shared JSON reading layer (core/base/jsonread.h): value quoting styles, key
// paths, the shared value checks and the error cap.
#include "core/base/errors.h"
#include "core/base/jsonread.h"

#include <QtTest>

#include <array>
#include <string>
#include <string_view>

using nlohmann::json;
using namespace gp::detail;

class TestJsonRead : public QObject {
    Q_OBJECT

private slots:
    void describeShort();
    void describeVerbatim();
    void joinPathCapsLongKeys();
    void sharedChecks();
    void readerGettersUseSharedChecks();
    void readerStyle();
    void errorCapAddsOverflowLine();
    void errorCapNotReached();
    void objectReaderChoiceAndBool();
};

void TestJsonRead::describeShort()
{
    QCOMPARE(describe(json("x")), std::string("\"x\""));
    QCOMPARE(describe(json::object({{"a", 1}})), std::string("an object"));
    QCOMPARE(describe(json::array({1})), std::string("an array"));
    QCOMPARE(describe(json(nullptr)), std::string("null"));
    QCOMPARE(describe(json(true)), std::string("true"));
    // Non-ASCII escaped; 61+ characters cut to 57 plus "...".
    QCOMPARE(describe(json("\xc3\x84")), std::string("\"\\u00c4\""));
    const std::string s = describe(json(std::string(70, 'a')));
    QCOMPARE(s.size(), std::size_t(60));
    QCOMPARE(s, "\"" + std::string(56, 'a') + "...");
}

void TestJsonRead::describeVerbatim()
{
    const auto v = ValueStyle::Verbatim;
    QCOMPARE(describe(json::object({{"a", 1}}), v), std::string("{\"a\":1}"));
    QCOMPARE(describe(json::array({1, 2}), v), std::string("[1,2]"));
    // Non-ASCII kept as written; cut after 48 bytes, then "...".
    QCOMPARE(describe(json("\xc3\x84"), v), std::string("\"\xc3\x84\""));
    const std::string s = describe(json(std::string(70, 'b')), v);
    QCOMPARE(s, "\"" + std::string(47, 'b') + "...");
    QCOMPARE(describe(json(std::string(46, 'c')), v), "\"" + std::string(46, 'c') + "\"");
}

void TestJsonRead::joinPathCapsLongKeys()
{
    QCOMPARE(joinPath("", "a"), std::string("a"));
    QCOMPARE(joinPath("model", "layers"), std::string("model.layers"));
    QCOMPARE(joinPath("cat[0]", std::string(64, 'k'), 64), "cat[0]." + std::string(64, 'k'));
    QCOMPARE(joinPath("cat[0]", std::string(65, 'k'), 64), "cat[0]." + std::string(64, 'k') + "...");
    QCOMPARE(joinPath("", std::string(300, 'k')), std::string(300, 'k'));
}

void TestJsonRead::sharedChecks()
{
    const auto s = ValueStyle::Short;
    QVERIFY(checkBool(json(false), s).value == std::optional<bool>(false));
    QCOMPARE(checkBool(json(0), s).problem, std::string("must be true or false, got 0"));
    QVERIFY(checkString(json("x"), false, s).value == std::optional<std::string>("x"));
    QVERIFY(checkString(json(""), false, s).value == std::optional<std::string>(""));
    QCOMPARE(checkString(json(""), true, s).problem, std::string("must be a non-empty string, got \"\""));
    QCOMPARE(checkString(json(3), false, s).problem, std::string("must be a string, got 3"));
    constexpr std::array kChoices{std::string_view("rope"), std::string_view("learned")};
    QVERIFY(checkChoice(json("learned"), kChoices, s).value == std::optional<std::size_t>(1));
    QCOMPARE(checkChoice(json("Rope"), kChoices, s).problem,
             std::string("must be one of \"rope\", \"learned\", got \"Rope\""));
    QCOMPARE(checkChoice(json::array(), kChoices, s).problem,
             std::string("must be one of \"rope\", \"learned\", got an array"));
    QCOMPARE(checkChoice(json::array(), kChoices, ValueStyle::Verbatim).problem,
             std::string("must be one of \"rope\", \"learned\", got []"));
}

void TestJsonRead::readerGettersUseSharedChecks()
{
    JsonReader r;
    const json obj = {{"b", "yes"}, {"s", 1}, {"c", "x"}, {"ok", true}};
    QVERIFY(r.boolean(obj, "p", "ok") == std::optional<bool>(true));
    QVERIFY(!r.boolean(obj, "p", "b"));
    QVERIFY(!r.string(obj, "p", "s"));
    QVERIFY(!r.choice(obj, "p", "c", {"a", "b"}));
    QVERIFY(!r.boolean(obj, "p", "absent"));
    QCOMPARE(r.errors.size(), std::size_t(3));
    QCOMPARE(r.errors[0].text(), std::string("p.b: must be true or false, got \"yes\""));
    QCOMPARE(r.errors[1].text(), std::string("p.s: must be a string, got 1"));
    QCOMPARE(r.errors[2].text(), std::string("p.c: must be one of \"a\", \"b\", got \"x\""));
    QCOMPARE(r.errorCount(), std::size_t(3));
}

void TestJsonRead::readerStyle()
{
    JsonReader r(ValueStyle::Verbatim, 10, "f");
    QVERIFY(!r.booleanAt(json::object({{"k", "\xc3\xa9"}}), "f[0].x"));
    QCOMPARE(r.errors.at(0).text(), std::string("f[0].x: must be true or false, got {\"k\":\"\xc3\xa9\"}"));
}

void TestJsonRead::errorCapAddsOverflowLine()
{
    JsonReader r(ValueStyle::Verbatim, 2, "overlay.json");
    for (int i = 0; i < 5; ++i)
        r.error("e" + std::to_string(i), "bad");
    QCOMPARE(r.errors.size(), std::size_t(2));
    QCOMPARE(r.errorCount(), std::size_t(5));
    try {
        r.throwIfErrors();
        QFAIL("no InputError");
    } catch (const gp::InputError& e) {
        QCOMPARE(e.problems().size(), std::size_t(3));
        QCOMPARE(e.problems()[1].text(), std::string("e1: bad"));
        QCOMPARE(e.problems()[2].text(), std::string("overlay.json: 3 more problems not shown"));
    }
    // The reader is empty afterwards.
    QCOMPARE(r.errorCount(), std::size_t(0));
    r.throwIfErrors();
}

void TestJsonRead::errorCapNotReached()
{
    JsonReader r(ValueStyle::Short, 2, "x");
    r.error("a", "one");
    r.error("b", "two");
    const auto list = r.takeErrors();
    QCOMPARE(list.size(), std::size_t(2));
    QCOMPARE(list[1].text(), std::string("b: two"));
}

void TestJsonRead::objectReaderChoiceAndBool()
{
    const json obj = {{"ffn", "relu"}, {"tied", "no"}, {"pos", "learned"}};
    ObjectReader r(obj, "model");
    QCOMPARE(r.choiceOr("ffn", {"swiglu", "gelu"}, 1), std::size_t(1));
    QCOMPARE(r.choiceOr("pos", {"rope", "learned"}, 0), std::size_t(1));
    QCOMPARE(r.choiceOr("absent", {"rope", "learned"}, 0), std::size_t(0));
    QCOMPARE(r.booleanOr("tied", true), true);
    const auto problems = r.takeProblems();
    QCOMPARE(problems.size(), std::size_t(2));
    QCOMPARE(problems[0].text(), std::string("model.ffn: must be one of \"swiglu\", \"gelu\", got \"relu\""));
    QCOMPARE(problems[1].text(), std::string("model.tied: must be true or false, got \"no\""));
}

QTEST_APPLESS_MAIN(TestJsonRead)
#include "tst_jsonread.moc"
