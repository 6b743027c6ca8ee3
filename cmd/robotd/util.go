package main

import (
	"encoding/json"
	"io"
)

func jsonIndent(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc
}
