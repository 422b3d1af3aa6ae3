package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class HtmlReportTest {

    static Document parse(String html) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(false);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
    }

    static List<Element> byClass(Document d, String tag, String cls) {
        List<Element> out = new ArrayList<>();
        NodeList nl = d.getElementsByTagName(tag);
        for (int i = 0; i < nl.getLength(); i++) {
            Element e = (Element) nl.item(i);
            if (List.of(e.getAttribute("class").split(" ")).contains(cls)) {
                out.add(e);
            }
        }
        return out;
    }

    @Test
    void oneChartPerWorkloadWithABarPerMeasuredRowAndEveryRowInTheTable() throws Exception {
        Results r = Fixtures.sample();
        String html = HtmlReport.render(r, Targets.evaluate(r));
        Document d = parse(html); // well-formed, or this throws

        List<Element> charts = byClass(d, "svg", "chart");
        assertEquals(r.workloads().size(), charts.size());
        assertEquals("callSoon in-loop", charts.get(0).getAttribute("data-workload"));

        assertEquals(5, byClass(d, "rect", "bar").size());   // 6 rows, one n/a
        assertEquals(2, byClass(d, "rect", "ours").size());
        assertEquals(5, byClass(d, "path", "whisker").size());
        assertEquals(2, byClass(d, "line", "best-peer").size());

        List<String> labels = byClass(d, "text", "label").stream().map(Element::getTextContent).toList();
        for (Row row : r.rows()) {
            assertTrue(labels.contains(row.contender()), row.contender() + " missing from " + labels);
        }
        assertEquals("n/a (no sockets)", byClass(d, "text", "na").get(0).getTextContent());

        Element table = byClass(d, "table", "results").get(0);
        assertEquals(1 + r.rows().size(), table.getElementsByTagName("tr").getLength());
        assertEquals(3, byClass(d, "tr", "ours").size());

        // the machine string is escaped, not markup
        assertTrue(html.contains("test &lt;machine&gt; &amp; &quot;co&quot;"), html);
        // self-contained: nothing fetched
        assertFalse(html.contains("http://") && html.replace("http://www.w3.org/", "").contains("http://"));
        assertFalse(html.contains("https://"));
        assertFalse(html.contains("<script src"));
    }

    @Test
    void barsScaleToTheLargestValue() throws Exception {
        Results r = Fixtures.sample();
        Document d = parse(HtmlReport.render(r, List.of()));
        Element first = byClass(d, "rect", "bar").get(0); // loop select/heap, median 190 of max 200
        assertEquals(190.0 / 200 * HtmlReport.BAR_AREA, Double.parseDouble(first.getAttribute("width")), 0.1);
    }
}
