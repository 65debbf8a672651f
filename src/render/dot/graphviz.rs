//! What every picture shares: the colours of the node and link kinds, Graphviz
//! statements built through graphviz-rust (quoted ids, attributes, nodes, edges, boxes,
//! rows), the graph-wide attributes, the legend, and the printer.

use graphviz_rust::dot_structures::{
    Attribute, Edge, EdgeTy, GraphAttributes, Id, Node, NodeId, Stmt, Subgraph, Vertex,
};
use graphviz_rust::printer::{DotPrinter, PrinterContext};

use crate::model::LinkType;

/// Fill colours of the node kinds.
pub(super) const FILL_CPU: &str = "#cfd8ea";
pub(super) const FILL_PCI: &str = "#eeeeee";
pub(super) const FILL_GPU: &str = "#c6e5b3";
pub(super) const FILL_NIC: &str = "#fde7b4";
pub(super) const FILL_NET: &str = "#fff4dc";
pub(super) const FILL_NVS: &str = "#e3d0ef";

/// The colour a link type is drawn in.
pub(super) fn link_colour(lt: LinkType) -> &'static str {
    match lt {
        LinkType::Nvl => "#5e9e00",
        LinkType::C2c => "#8e44ad",
        LinkType::Pci => "#4a6fa5",
        LinkType::Sys => "#c0392b",
        LinkType::Net => "#d35400",
        LinkType::Loc => "#888888",
    }
}

/// A quoted Graphviz string. `\n` (a line break in a label) is kept; any other
/// backslash and every double quote are escaped.
pub(super) fn quoted(s: &str) -> Id {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'n') => out.push('\\'),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    Id::Escaped(out)
}

/// Text for an HTML-like label: `&`, `<`, `>` and `"` escaped.
pub(super) fn html_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub(super) fn attr(k: &str, v: &str) -> Attribute {
    Attribute(Id::Plain(k.to_string()), quoted(v))
}

/// An attribute whose value is an HTML-like label (`<...>`).
pub(super) fn html_attr(k: &str, html: &str) -> Attribute {
    Attribute(Id::Plain(k.to_string()), Id::Html(format!("<{html}>")))
}

pub(super) fn vid(s: &str) -> NodeId {
    NodeId(quoted(s), None)
}

/// A node statement.
pub(super) fn node(id: &str, attributes: Vec<Attribute>) -> Stmt {
    Stmt::Node(Node { id: vid(id), attributes })
}

/// An edge statement between two node ids.
pub(super) fn edge_ids(a: &str, b: &str, attributes: Vec<Attribute>) -> Stmt {
    Stmt::Edge(Edge { ty: EdgeTy::Pair(Vertex::N(vid(a)), Vertex::N(vid(b))), attributes })
}

/// A subgraph (a cluster when its name starts with `cluster`).
pub(super) fn subgraph(name: &str, stmts: Vec<Stmt>) -> Stmt {
    Stmt::Subgraph(Subgraph { id: quoted(name), stmts })
}

/// `{rank=same; a; b; ...}`.
pub(super) fn same_rank(name: &str, ids: &[String]) -> Stmt {
    let mut stmts = vec![Stmt::Attribute(attr("rank", "same"))];
    stmts.extend(ids.iter().map(|id| node(id, vec![])));
    subgraph(name, stmts)
}

/// An invisible edge that keeps `a` left of (or above) `b`.
pub(super) fn invisible(a: &str, b: &str) -> Stmt {
    edge_ids(a, b, vec![attr("style", "invis")])
}

/// The graph-wide attributes of every drawing.
pub(super) fn graph_attrs(title: &str) -> Vec<Stmt> {
    vec![
        Stmt::Attribute(attr("label", title)),
        Stmt::Attribute(attr("labelloc", "t")),
        Stmt::Attribute(attr("fontname", "Helvetica")),
        Stmt::Attribute(attr("fontsize", "16")),
        Stmt::Attribute(attr("newrank", "true")),
        Stmt::Attribute(attr("ordering", "out")),
        // The final crossing pass over the whole graph would undo the order inside the
        // socket boxes.
        Stmt::Attribute(attr("remincross", "false")),
        Stmt::Attribute(attr("nodesep", "0.2")),
        Stmt::Attribute(attr("ranksep", "0.35")),
        Stmt::GAttribute(GraphAttributes::Node(vec![
            attr("fontname", "Helvetica"),
            attr("fontsize", "10"),
            attr("style", "filled"),
            attr("margin", "0.06,0.04"),
        ])),
        Stmt::GAttribute(GraphAttributes::Edge(vec![attr("fontname", "Helvetica"), attr("fontsize", "9")])),
    ]
}

/// One legend row: a colour swatch (or none) and its meaning.
fn legend_row(colour: Option<&str>, swatch: &str, text: &str) -> String {
    let cell = match colour {
        Some(c) => format!("<TD BGCOLOR=\"{c}\" WIDTH=\"28\">{}</TD>", html_text(swatch)),
        None => format!("<TD>{}</TD>", html_text(swatch)),
    };
    format!("<TR>{cell}<TD ALIGN=\"LEFT\">{}</TD></TR>", html_text(text))
}

/// The legend node.
pub(super) fn legend(rows: &[(Option<&str>, &str, &str)]) -> Stmt {
    let mut html = String::from(
        "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\"><TR><TD COLSPAN=\"2\"><B>Legend</B></TD></TR>",
    );
    for (c, s, t) in rows {
        html.push_str(&legend_row(*c, s, t));
    }
    html.push_str("</TABLE>");
    node("legend", vec![attr("shape", "plaintext"), attr("style", ""), html_attr("label", &html)])
}

/// The legend, on a row of its own under `above` (a node of the last row).
pub(super) fn legend_at_bottom(rows: &[(Option<&str>, &str, &str)], above: &str) -> Vec<Stmt> {
    vec![
        legend(rows),
        subgraph("legendrow", vec![Stmt::Attribute(attr("rank", "sink")), node("legend", vec![])]),
        edge_ids(above, "legend", vec![attr("style", "invis")]),
    ]
}

/// Print an undirected graph, with a trailing newline.
pub(super) fn print(stmts: Vec<Stmt>) -> String {
    let g = graphviz_rust::dot_structures::Graph::Graph { id: Id::Plain("topo".into()), strict: false, stmts };
    let mut s = g.print(&mut PrinterContext::default());
    s.push('\n');
    s
}

/// Print a directed graph, with a trailing newline.
pub(super) fn print_directed(stmts: Vec<Stmt>) -> String {
    let g = graphviz_rust::dot_structures::Graph::DiGraph { id: Id::Plain("topo".into()), strict: false, stmts };
    let mut s = g.print(&mut PrinterContext::default());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use graphviz_rust::dot_structures::Id;

    fn q(s: &str) -> String {
        match super::quoted(s) {
            Id::Escaped(e) => e,
            _ => String::new(),
        }
    }

    #[test]
    fn quoting_keeps_line_breaks() {
        assert_eq!(q("GPU a\\nsm90"), "\"GPU a\\nsm90\"");
        assert_eq!(q("a\\b \"c\""), "\"a\\\\b \\\"c\\\"\"");
    }
}
