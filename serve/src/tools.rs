//! The tool registry: name, title, description, input schema and the one service function
//! per capability. MCP `tools/list` / `tools/call` and the REST routes both go through
//! [`call`], so payloads are identical on both transports.

use std::sync::Arc;

use index::Generation;
use serde_json::{Map, Value, json};

use crate::answer::{ErrorCode, GenerationRef, ToolError, with_envelope};
use crate::args::Args;
use crate::laws;

type Run = fn(&Generation, &Args<'_>) -> Result<Map<String, Value>, ToolError>;

pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub schema: fn() -> Value,
    pub run: Run,
}

impl Tool {
    /// Declared argument names (from the schema's `properties`).
    pub fn declared(&self) -> Vec<String> {
        (self.schema)()["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
    }

    /// The `tools/list` entry.
    pub fn descriptor(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": (self.schema)(),
            "annotations": {
                "title": self.title,
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false,
            },
        })
    }
}

fn int_prop(description: &str, minimum: i64, maximum: Option<i64>, default: i64) -> Value {
    let mut v = json!({"type": "integer", "description": description, "minimum": minimum, "default": default});
    if let Some(m) = maximum {
        v["maximum"] = json!(m);
    }
    v
}

fn schema_search_laws() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "German words or a citation (\"Notwehr\", \"§ 823 BGB\"). Max 500 characters.", "minLength": 1, "maxLength": 500},
            "book_code": {"type": "string", "description": "Only sections of this law: abbreviation as usually written (BGB, StGB, AO, SGB V, EGBGB) or the law's title."},
            "limit": int_prop("Rows to return.", 1, Some(50), 10),
        },
        "required": ["query"],
    })
}

fn schema_get_law_section() -> Value {
    json!({
        "type": "object",
        "properties": {
            "book": {"type": "string", "description": "Law abbreviation (BGB, GG, AO, SGB V, …), slug or title."},
            "section": {"type": "string", "description": "Section designation: \"823\", \"§ 823\", \"§823\", \"Art. 20\", \"Art 20\", \"Artikel 20\", \"Anlage 1\", or a `section` key from get_law's table of contents. Exact only."},
            "offset": int_prop("Snippet mode: start, in Unicode code points of the plain text.", 0, None, 0),
            "length": int_prop("Snippet mode: code points to return; 0 = to the end.", 0, None, 0),
        },
        "required": ["book", "section"],
    })
}

fn schema_get_law() -> Value {
    json!({
        "type": "object",
        "properties": {
            "book": {"type": "string", "description": "Law abbreviation (BGB, GG, AO, SGB V, …), slug or title."},
            "include": {"type": "array", "items": {"type": "string", "enum": ["meta", "toc", "text"]}, "description": "Parts to return; default [\"meta\", \"toc\"]."},
            "offset": int_prop("Text part: start in code points of the whole law's plain text; pass next_offset to continue.", 0, None, 0),
            "length": int_prop("Text part: code points per page.", 1, Some(100_000), 20_000),
            "toc_offset": int_prop("Table of contents: first entry.", 0, None, 0),
            "toc_limit": int_prop("Table of contents: entries per page.", 1, Some(5_000), 500),
        },
        "required": ["book"],
    })
}

fn schema_list_law_books() -> Value {
    json!({
        "type": "object",
        "properties": {
            "prefix": {"type": "string", "description": "Abbreviation prefix (\"SGB\", \"Bau\")."},
            "search": {"type": "string", "description": "Substring of the title or abbreviation."},
            "limit": int_prop("Rows to return.", 1, Some(500), 50),
            "offset": int_prop("Rows to skip (paging).", 0, None, 0),
        },
    })
}

fn schema_none() -> Value {
    json!({"type": "object", "properties": {}})
}

pub static TOOLS: &[Tool] = &[
    Tool {
        name: "search_laws",
        title: "Search federal statutes",
        description: "Full-text search over the sections (§§, Artikel, Anlagen) of German federal law from gesetze-im-internet.de. Headings are searchable (\"Notwehr\" finds § 32 StGB). Returns snippets, never decisions; a query that is a § citation (\"§ 823 BGB\") returns that section first. Filter with book_code. Read the full text with get_law_section.",
        schema: schema_search_laws,
        run: laws::search_laws,
    },
    Tool {
        name: "get_law_section",
        title: "Read one section of a law",
        description: "The complete plain text of one § / Artikel / Anlage by book and section (\"BGB\" + \"823\"; \"GG\" + \"Art. 20\"). Exact sections only (never § 1823 for 823); a miss returns a hint showing how the book labels its sections. Never truncated: offset/length return a snippet with total_length, has_more and next_offset instead.",
        schema: schema_get_law_section,
        run: laws::get_law_section,
    },
    Tool {
        name: "get_law",
        title: "Read a law: metadata, table of contents, text",
        description: "A law by abbreviation: metadata (title, dates, Fundstelle, Stand), the table of contents (keys that get_law_section accepts, paged with toc_offset/toc_limit) and/or the whole plain text paged by characters (follow next_offset). Links to the law on gesetze-im-internet.de.",
        schema: schema_get_law,
        run: laws::get_law,
    },
    Tool {
        name: "list_law_books",
        title: "List law books",
        description: "The federal laws held, with abbreviation, title and section count; filter by abbreviation prefix or a title substring; paged with limit/offset and a total.",
        schema: schema_list_law_books,
        run: laws::list_law_books,
    },
    Tool {
        name: "get_platform_info",
        title: "What this server holds",
        description: "Counts of laws and sections, source snapshot, and the generation (id, build time, code commit) answers come from.",
        schema: schema_none,
        run: laws::platform_info,
    },
];

pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The answer of one call: the payload with envelope, and whether it is a refusal.
pub struct Answer {
    pub body: Map<String, Value>,
    pub error: Option<ErrorCode>,
}

pub fn generation_ref(g: &Generation) -> GenerationRef {
    GenerationRef { id: g.id.clone(), built_at: g.manifest.built_at.clone() }
}

/// Calls `tool` with `arguments` on `generation` (blocking: run it off the async executor).
pub fn call(tool: &Tool, generation: Option<Arc<Generation>>, arguments: &Map<String, Value>) -> Answer {
    let declared = tool.declared();
    let ignored: Vec<String> = arguments.keys().filter(|k| !declared.contains(k)).cloned().collect();
    let Some(g) = generation else {
        let e = ToolError::new(
            ErrorCode::NoGeneration,
            "no index generation is loaded",
            "The server is starting or no generation was published yet (run `make reindex`); retry shortly.",
        );
        return Answer { body: with_envelope(e.payload(), None, &ignored), error: Some(e.code) };
    };
    let gref = generation_ref(&g);
    let args = Args::new(arguments);
    match (tool.run)(&g, &args) {
        Ok(payload) => Answer { body: with_envelope(payload, Some(&gref), &ignored), error: None },
        Err(e) => Answer { body: with_envelope(e.payload(), Some(&gref), &ignored), error: Some(e.code) },
    }
}
