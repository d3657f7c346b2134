package htmlreport

import "html/template"

// The page is written as well-formed XML as well as HTML (void elements
// closed, boolean attributes with values, no script of its own), so that
// an XML parser can check it.
//
// It fits the width of the window: the timelines are laid out in percent
// of their box's width with their text at its own size (see svg.go), and
// long text (the title, commands, violations, the plan and the trace)
// wraps, or scrolls inside its own box, rather than widening the page.
var pageTemplate = func() *template.Template {
	t := template.Must(template.New("page").Parse(pageHTML))
	template.Must(t.New("item").Parse(itemHTML))
	return t
}()

// itemHTML is a violation in a list: its link to its line on the whole
// timeline, its link to its zoomed strip if it has one, its checker and its
// message.
const itemHTML = `<a class="vref{{if .Excused}} expected{{end}}" href="#{{.ID}}">{{.Label}} at {{.At}}</a>
{{- if .Zoom}} <a class="zoom-link" href="#{{.Zoom}}">zoom</a>{{end}} <span class="checker">{{.Checker}}</span> {{.Message}}`

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328; margin: 0; background: #fff; }
main { padding: 14px 22px 40px; }
h1 { font-size: 20px; margin: 0 0 6px; overflow-wrap: anywhere; }
h3 { font-size: 14.5px; margin: 16px 0 4px; }
h2 { font-size: 16px; margin: 26px 0 6px; border-bottom: 1px solid #d8dee4; padding-bottom: 3px; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: #f6f8fa; border: 1px solid #d8dee4; padding: 8px 10px; overflow: auto; max-height: 640px; }
.meta { color: #57606a; }
.meta b { color: #1f2328; }
.badge { display: inline-block; padding: 1px 10px; border-radius: 12px; font-weight: 700; color: #fff; text-transform: uppercase; letter-spacing: .04em; font-size: 13px; vertical-align: 1px; }
.badge.pass { background: #2b9a3e; }
.badge.unsafe { background: #d00000; }
.badge.liveness { background: #e8590c; }
.badge.crashed { background: #9c36b5; }
.badge.blocked { background: #5f3dc4; }
.badge.inconclusive { background: #868e96; }
.story { color: #3d444d; margin: 6px 0; max-width: 1200px; overflow-wrap: anywhere; }
.expectation { font-size: 15px; font-weight: 700; margin: 8px 0; padding: 6px 12px; border-left: 5px solid #2b9a3e; background: #ebfbee; color: #1b5e20; overflow-wrap: anywhere; }
.expectation.missed { border-color: #d00000; background: #fff5f5; color: #a00000; }
.story .expect { color: #6e7781; }
.headline { font-size: 15px; font-weight: 600; margin: 6px 0; overflow-wrap: anywhere; }
.box { border-left: 5px solid #d00000; background: #fff5f5; padding: 6px 12px; margin: 8px 0; overflow-wrap: anywhere; }
.box.outside { border-color: #f08c00; background: #fff8ec; }
.box.failure { border-color: #9c36b5; background: #f8f0fc; }
.box ul { margin: 2px 0; padding-left: 18px; }
.box li { margin: 2px 0; }
.vref { font-weight: 700; color: #d00000; text-decoration: none; white-space: nowrap; }
.vref.expected { color: #b35c00; }
.vref:hover, .zoom-link:hover { text-decoration: underline; }
.zoom-link { font-size: 12px; color: #1c5fb8; text-decoration: none; border: 1px solid #a5c4ea; border-radius: 3px; padding: 0 4px; white-space: nowrap; }
.checker { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; background: #f1f3f5; padding: 0 4px; border-radius: 3px; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 18px; color: #57606a; font-size: 13px; margin: 6px 0; }
.facts b { color: #1f2328; font-weight: 600; }
.facts span { min-width: 0; overflow-wrap: anywhere; }
.cmd { background: #f6f8fa; border: 1px solid #d8dee4; padding: 2px 8px; border-radius: 4px; user-select: all; overflow-wrap: anywhere; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12.5px; color: #333; margin: 6px 0 8px; }
.legend span { white-space: nowrap; }
.legend span.wide { white-space: normal; }
.legend svg { vertical-align: -3px; margin-right: 4px; }
.scroll { overflow-x: auto; border: 1px solid #d8dee4; background: #fff; }
.caption { color: #57606a; font-size: 13px; margin: 4px 0; overflow-wrap: anywhere; }
.table-box { overflow-x: auto; }
details.zoom { margin: 8px 0; }
details.zoom > summary { margin-bottom: 4px; overflow-wrap: anywhere; }
details.zoom.violation > summary { color: #b00000; }
details.zoom.failure > summary { color: #862e9c; }
details.zoom.expected > summary { color: #b35c00; font-weight: 600; }
table.terms { border-collapse: collapse; font-size: 13px; }
table.terms td, table.terms th { border-bottom: 1px solid #e6e9ec; padding: 2px 10px 2px 0; text-align: left; }
table.terms tr.overlapped td { background: #fff0f0; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; }
iframe.porcupine { width: 100%; border: 1px solid #d8dee4; resize: vertical; }
details { margin: 8px 0; }
summary { cursor: pointer; font-weight: 600; }
svg.timeline { display: block; overflow: visible; font-family: system-ui, "DejaVu Sans", sans-serif; }
svg.timeline text { font-size: 12px; }
svg.timeline a { cursor: pointer; }
svg.timeline a:hover .vl-box { stroke: #111; stroke-width: 1.5; }
svg.timeline .lane-name { font-weight: 700; font-size: 15px; fill: #1f2328; }
svg.timeline .lane-sub { font-size: 11px; fill: #57606a; }
svg.timeline .row-cap { font-size: 11px; fill: #8c939a; text-anchor: end; }
.lane-sep { stroke: #d0d4da; }
.grid { stroke: #e1e4e8; }
svg.timeline .tick { font-size: 11px; text-anchor: middle; fill: #333; }
svg.timeline .axis-cap { font-size: 11px; fill: #666; text-anchor: end; }
svg.timeline .span-label { font-size: 11px; font-weight: 700; fill: #555; }
svg.timeline .partition-label { fill: #1864ab; font-weight: 600; }
.partition rect { fill: #d6ebfb; stroke: #74b3e6; stroke-dasharray: 3 2; }
.pause rect { fill: #9aa0a6; opacity: .42; }
.pause.suspend rect { fill: #495057; opacity: .45; }
svg.timeline .pause-label { fill: #1f2328; }
.s3-base { stroke: #e3e3e3; }
svg.timeline .term-label { font-weight: 700; fill: #fff; paint-order: stroke; stroke: rgba(0, 0, 0, .55); stroke-width: 3px; pointer-events: none; }
.s3-tick { stroke-width: 1.7; }
.s3-span { stroke-width: 1.3; opacity: .6; }
.s3-ok line { stroke: #2b9a3e; }
.s3-absent line { stroke: #4c9be8; }
.s3-412 line { stroke: #f08c00; }
.s3-err line { stroke: #e03131; }
.s3-none line { stroke: #9e9e9e; }
.s3-none .s3-span { stroke-dasharray: 3 2; }
.hit { fill: transparent; }
.fence-accepted circle { fill: #2b9a3e; }
.fence-refused path { stroke: #e03131; stroke-width: 2.4; fill: none; }
.fence-flight { stroke: #868e96; stroke-dasharray: 2 2; }
.note path { fill: #f59f00; stroke: #a65f00; stroke-width: .7; }
.crash path { stroke: #111; stroke-width: 2.6; }
.crash-line { stroke: #111; stroke-dasharray: 2 2; }
.stop rect { fill: #111; }
.start path { fill: #2b9a3e; }
.panic path { fill: #9c36b5; }
svg.timeline .clock-offset { font-size: 11px; fill: #7a8089; }
.clock-tick { stroke: #c4c8ce; }
.overlap-band { stroke: #e03131; stroke-width: 2.5; }
.overlap-across { fill: rgba(224, 49, 49, .08); }
.overlap-side { stroke: #e03131; stroke-width: 1.2; stroke-dasharray: 4 2; }
svg.timeline .overlap-label { font-weight: 700; fill: #c92a2a; }
.overlap.allowed .overlap-band, .overlap.allowed .overlap-side { stroke: #f08c00; }
.overlap.allowed .overlap-across { fill: rgba(240, 140, 0, .07); }
svg.timeline .overlap.allowed .overlap-label { fill: #b35c00; }
.vl { stroke-width: 3; }
.vl-lead { stroke-width: 1; }
svg.timeline .vl-text { font-weight: 700; fill: #fff; }
.violation .vl, .violation .vl-lead { stroke: #d00000; }
.violation .vl-box { fill: #d00000; }
.expected .vl, .expected .vl-lead { stroke: #f08c00; stroke-dasharray: 6 3; }
.expected .vl { stroke-width: 2; }
.expected .vl-box { fill: #e8890c; }
.failure .vl, .failure .vl-lead { stroke: #9c36b5; }
.failure .vl-box { fill: #9c36b5; }
.heal .vl, .heal .vl-lead { stroke: #1c7ed6; stroke-dasharray: 8 4; }
.heal .vl { stroke-width: 1.5; }
.heal .vl-box { fill: #1c7ed6; }
.vline:target .vl { stroke-width: 7; }
</style>
</head>
<body>
<main>
<header>
<h1>{{.Title}}</h1>
<div class="meta">scenario <b>{{.Scenario}}</b> · seed <b>{{.Seed}}</b> · verdict <span class="badge {{.VerdictClass}}" id="verdict">{{.Verdict}}</span>{{if ne .Verdict "pass"}} · signature <code id="signature">{{.Signature}}</code>{{end}}</div>
{{- if .Story}}
<p class="story" id="story"><b>The scenario:</b> {{.Story}}{{if .Expect}} <span class="expect">(expected: {{.Expect}})</span>{{end}}</p>
{{- end}}
{{- with .Expectation}}
<p class="expectation{{if not .Caught}} missed{{end}}" id="expectation" data-caught="{{.Caught}}">{{.Text}}</p>
{{- end}}
<p class="headline">{{.Headline}}</p>
{{- if .Failure}}
<div class="box failure"><b>failure:</b> {{.Failure}}</div>
{{- end}}
{{- if .Violations}}
<div class="box" id="violations"><b>Violations</b> (click a time to find it on the timeline, or zoom to see the ten seconds around it):
<ul>
{{- range .Violations}}
<li class="violation-item">{{template "item" .}}</li>
{{- end}}
</ul>
{{- if .MoreViolations}}
<details><summary>{{len .MoreViolations}} more</summary><ul>
{{- range .MoreViolations}}
<li class="violation-item">{{template "item" .}}</li>
{{- end}}
</ul></details>
{{- end}}
</div>
{{- end}}
{{- if .Outside}}
<div class="box outside" id="outside">
{{- range .Outside}}
<div>outside the assumptions: {{.}}</div>
{{- end}}
{{- if .Expected}}
<div>which excuses these, each only for the node and time the fault can affect; reported, not counted (orange on the timeline):</div>
<ul>
{{- range .Expected}}
<li class="expected-item">{{template "item" .}}</li>
{{- end}}
</ul>
{{- end}}
</div>
{{- end}}
<div class="facts">{{range .Facts}}<span>{{.K}}: <b>{{.V}}</b></span>{{end}}</div>
<div>replay: <code class="cmd" id="replay">{{.Replay}}</code></div>
</header>

<section id="timeline">
<h2>Leadership timeline</h2>
<div class="legend">
<span><svg width="34" height="14"><rect x="1" y="1" width="32" height="12" rx="3" fill="#3b6fb6"/></svg>leads (a colour per fencing token)</span>
<span><svg width="34" height="14"><rect x="1" y="1" width="32" height="12" fill="#fde0e0" stroke="#e03131" stroke-dasharray="4 2"/><path d="M1 13l12 -12M9 13l12 -12M17 13l12 -12" stroke="#e03131" stroke-width="2"/></svg>two leaders at once</span>
<span><svg width="14" height="16"><line x1="7" y1="0" x2="7" y2="16" stroke="#d00000" stroke-width="3"/></svg>violation</span>
<span><svg width="14" height="16"><line x1="7" y1="0" x2="7" y2="16" stroke="#f08c00" stroke-width="2" stroke-dasharray="4 2"/></svg>allowed outside the assumptions</span>
<span><svg width="14" height="16"><line x1="7" y1="0" x2="7" y2="16" stroke="#1c7ed6" stroke-width="1.5" stroke-dasharray="5 3"/></svg>faults heal</span>
<span><svg width="24" height="14"><rect x="1" y="1" width="22" height="12" fill="#9aa0a6" opacity=".42"/></svg>paused</span>
<span><svg width="24" height="14"><rect x="1" y="1" width="22" height="12" fill="#495057" opacity=".45"/></svg>VM suspended</span>
<span><svg width="24" height="14"><rect x="1" y="1" width="22" height="12" fill="#f1f1f1" stroke="#c8c8c8"/></svg>process down</span>
<span><svg width="24" height="14"><rect x="1" y="1" width="22" height="12" fill="#d6ebfb" stroke="#74b3e6" stroke-dasharray="3 2"/></svg>cut off from S3</span>
<span><svg width="14" height="14"><path d="M1.5 2h11l-5.5 10z" fill="#f59f00" stroke="#a65f00" stroke-width=".7"/></svg>fault (hover for what)</span>
<span><svg width="14" height="14"><path d="M2 2l10 10m0 -10l-10 10" stroke="#111" stroke-width="2.6"/></svg>crash</span>
<span><svg width="14" height="14"><rect x="2.5" y="2.5" width="9" height="9" fill="#111"/></svg>stop</span>
<span><svg width="14" height="14"><path d="M3 2l9 5l-9 5z" fill="#2b9a3e"/></svg>(re)start</span>
<span class="wide">S3 request at the instant S3 applied it (tall: write, short: read), by the answer:
<svg width="60" height="16"><line x1="5" y1="2" x2="5" y2="14" stroke="#2b9a3e" stroke-width="2"/><line x1="17" y1="2" x2="17" y2="14" stroke="#4c9be8" stroke-width="2"/><line x1="29" y1="2" x2="29" y2="14" stroke="#f08c00" stroke-width="2"/><line x1="41" y1="2" x2="41" y2="14" stroke="#e03131" stroke-width="2"/><line x1="53" y1="2" x2="53" y2="14" stroke="#9e9e9e" stroke-width="2"/></svg>2xx, 404, 412, 409/5xx, none (abandoned, lost){{if .Statements}}; an SQL statement alike: a row written or returned, none, an error, none{{end}}</span>
<span><svg width="14" height="14"><circle cx="7" cy="7" r="3" fill="#2b9a3e"/></svg>fenced write accepted</span>
<span><svg width="14" height="14"><path d="M3 3l8 8m0 -8l-8 8" stroke="#e03131" stroke-width="2.4"/></svg>fenced write refused (stale token)</span>
</div>
<p class="caption">{{.TimelineCaption}} The x axis is true time, the same for every node; under each lane, faint, is how far that node's own wall clock was from true time then (+1.250 s: it read 1.25 s more). Hover anything for details; click a line's label to zoom on it.</p>
<div class="scroll">{{.Timeline}}</div>
{{- range .Zooms}}
<details class="zoom {{.Class}}" id="{{.ID}}" data-lines="{{range $i, $l := .Lines}}{{if $i}} {{end}}{{$l}}{{end}}"{{if .Open}} open="open"{{end}}>
<summary>Zoom on {{.Summary}}</summary>
<div class="scroll">{{.SVG}}</div>
</details>
{{- end}}
<details open="open"><summary>Leadership terms</summary>
<div class="table-box">
<table class="terms">
<tr><th>node</th><th>identity</th><th>token</th><th>from</th><th>to</th><th>length</th></tr>
{{- range .Terms}}
<tr{{if .Overlapped}} class="overlapped"{{end}}><td>{{.Node}}</td><td>{{.Identity}}</td><td><span class="swatch" style="background: {{.Color}}"></span> {{.Token}}</td><td>{{.Start}}</td><td>{{.End}}</td><td>{{.Length}}{{if .Overlapped}} (overlaps another leader){{end}}</td></tr>
{{- end}}
</table>
</div>
</details>
</section>

<section id="histories">
<h2>The histories, as porcupine sees them</h2>
<p class="caption">Porcupine orders the instants of the run but does not keep their spacing.</p>
{{- range .Histories}}
<h3 id="{{.ID}}">{{.Heading}}</h3>
{{- if .Caption}}
<p class="caption">{{.Caption}}</p>
{{- end}}
{{- if .Error}}
<p class="caption">{{.Error}}</p>
{{- else}}
<iframe class="porcupine" id="{{.ID}}-frame" title="porcupine's visualisation of {{.Heading}}" sandbox="allow-scripts allow-same-origin" style="height: {{.Height}}px" srcdoc="{{.Doc}}"></iframe>
{{- end}}
{{- end}}
</section>

<section id="details">
<h2>Plan and trace</h2>
<details><summary>Fault plan (JSON)</summary>
<pre id="plan">{{.Plan}}</pre>
</details>
{{- if .HasTrace}}
<details><summary>Readable trace (true time, node, the node's own wall clock, event)</summary>
<pre id="trace">{{.Trace}}</pre>
</details>
{{- end}}
</section>
</main>
</body>
</html>
`
