package main

import (
	"encoding/json"
	"io"
	"strconv"
)

func jsonIndent(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc
}

func itoa(n int) string { return strconv.Itoa(n) }
