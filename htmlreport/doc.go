// Package htmlreport renders one judged run of the simulator as a
// self-contained HTML page meant to show what went wrong in a minute: the
// verdict and its violations, a timeline of every node's leadership terms,
// pauses, crashes, faults, S3 requests and fenced writes on one axis of
// true time with each violation as a red line across it, porcupine's view
// of the S3 history, the fault plan and the readable trace.
//
// The page loads nothing: its CSS is inline, the timeline is inline SVG,
// and porcupine's visualisation (which brings its own script) sits in an
// iframe whose document is the page's srcdoc attribute.
package htmlreport
