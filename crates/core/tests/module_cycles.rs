//! The core's modules import each other without circles (docs/architecture.md): a piece two
//! modules share lives in the lower one. A folder's `mod.rs` is counted as the face of its
//! children (its `mod` and `pub use` lines are not imports); its own items are a module like any
//! other.
//!
//! The scan (the module graph, shared with the `franz` crate's test) is
//! `tests/common/module_graph.rs`. Run with `--nocapture` to see the graph and its circles.

#[path = "common/module_graph.rs"]
mod module_graph;

use module_graph::{circles, cycles, graph_without_faces, render};
use std::path::Path;

#[test]
fn core_modules_import_each_other_without_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph_without_faces(&src);
    assert!(g.contains_key("engine::session"), "{g:?}");
    println!("module graph of franz-core:\n{}", render(&g));
    let found = circles(&g);
    for c in &found {
        println!(
            "circle: {}",
            c.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    assert!(
        found.is_empty(),
        "the core's modules import each other in circles (move the shared piece into the \
         lower module):\n  {}\ncycles:\n  {}",
        found
            .iter()
            .map(|c| c.iter().cloned().collect::<Vec<_>>().join(", "))
            .collect::<Vec<_>>()
            .join("\n  "),
        cycles(&g).join("\n  ")
    );
}
