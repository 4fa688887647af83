// Command simulate-objstore reads object stores for simulate: `simulate inspect s3://…` (and
// every command that reads a checkpoint by s3://, gs:// or azblob:// URL) runs it to serve the
// bucket's files (objstore.HelperBucket; `simulate-objstore serve`, its protocol on stdin and
// stdout). It links gocloud.dev's drivers and the cloud SDKs, which simulate does not: they
// would cost every simulate process 14 ms of start-up. Install it beside simulate (or on PATH):
//
//	go install github.com/restoresim/restoresim/cmd/simulate-objstore@latest
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/restoresim/restoresim/objstore/cloud"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: simulate-objstore serve\n\nServes a bucket's files to simulate on stdin and stdout (objstore.HelperBucket): simulate runs it to read s3://, gs:// and azblob:// URLs.")
		os.Exit(2)
	}
	// The replies go to the real stdout; anything a driver prints goes to stderr.
	out := os.Stdout
	os.Stdout = os.Stderr
	if err := cloud.Serve(context.Background(), os.Stdin, out); err != nil {
		fmt.Fprintln(os.Stderr, "simulate-objstore:", err)
		os.Exit(1)
	}
}
