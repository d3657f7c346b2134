// Package cmdline holds the command-line conventions that simrun and the
// project's tools (live mode, vet, the mutation tool) share, so that every
// subcommand reports alike: flag sets that report a bad flag instead of
// exiting and print their usage only for -h, usage errors (ErrUsage, exit
// status 2), positional arguments among flags, output paths checked before
// a long run, and SIGINT or SIGTERM turned into a cancelled context and the
// shell's exit status for the signal.
package cmdline
