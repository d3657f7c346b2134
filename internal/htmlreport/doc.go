// Package htmlreport renders one judged run of the simulator as a
// self-contained HTML page meant to show what went wrong in a minute: the
// verdict and its violations (and, for a protocol broken on purpose,
// whether the harness caught it); a timeline of every node's leadership
// terms, pauses, crashes, faults, S3 requests, fenced writes and its own
// clock's offset from true time, on one axis of true time with each
// violation as a red line across it; the timeline again, zoomed on each
// violation; porcupine's view of the election history and of the S3
// history; the fault plan and the readable trace.
//
// The page loads nothing: its CSS is inline, the timelines are inline SVG,
// and porcupine's visualisations (which bring their own script) sit in
// iframes whose documents are their srcdoc attributes. It fits the width
// of the window without shrinking its text below 11 pixels: the timelines
// are laid out in percent of their width, their labels clear of each other
// at every width from a window 800 pixels wide up, and long text wraps or
// scrolls inside its own box.
package htmlreport
