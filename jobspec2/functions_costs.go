package jobspec2

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/zclconf/go-cty/cty"
)

// bcryptUnits is what one round of bcrypt's key setup costs in work units:
// at the default cost of 10 (1024 rounds) a hash takes tens of
// milliseconds, about what a quarter of the default budget allows.
const bcryptUnits = 4096

// bcryptCost: bcrypt(str, cost) does 2^cost rounds; a cost of 31 would
// run for days.
func bcryptCost(args []cty.Value, _ Limits) (int64, error) {
	cost := int64(10)
	if len(args) > 1 {
		n, ok := knownInt(args[1])
		if !ok {
			return 0, nil // the function reports it
		}
		cost = n
	}
	if cost < 0 || cost > 31 {
		return 0, nil // bcrypt refuses it
	}
	return mulCost(int64(1)<<cost, bcryptUnits), nil
}

// rsaDecryptCost: an RSA private-key operation takes time in the cube of
// the key's size; a PEM block of n bytes holds a key of about 3n bits.
// A 4096-bit key costs about a hundred thousand units, a 16384-bit one
// (a third of a second) several million.
func rsaDecryptCost(args []cty.Value, _ Limits) (int64, error) {
	key, _ := knownString(args[1])
	n := int64(len(key)) / 64
	return mulCost(mulCost(n, n), n), nil
}

func knownInt(v cty.Value) (int64, bool) {
	v, _ = v.Unmark()
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.Number {
		return 0, false
	}
	n, acc := v.AsBigFloat().Int64()
	return n, acc == 0
}

// maxYAMLAliases bounds the aliases (*name) of a YAML document that
// yamldecode reads. Each alias repeats its anchor's value, so a few
// dozen of them nest into a value, and a type, of billions of elements
// that the decoder builds shared but that checking its type walks in
// full. Eight can at most multiply a document's size by about twenty.
const maxYAMLAliases = 8

// yamlAlias matches an alias token: a * that starts a node, followed by
// the anchor's name.
var yamlAlias = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s\[{,:-])\*[^\s\[\]{},]+`)
})

// yamlDecodeCheck refuses YAML with more aliases than maxYAMLAliases, or
// that may nest deeper than the limit: the decoder recurses once per
// level.
func yamlDecodeCheck(args []cty.Value, l Limits) error {
	s, _ := knownString(args[0])
	if n := len(yamlAlias().FindAllStringIndex(s, maxYAMLAliases+1)); n > maxYAMLAliases {
		return fmt.Errorf("the YAML uses more than %d aliases (*name), the most yamldecode reads", maxYAMLAliases)
	}
	if jsonDepth(s, l.MaxDepth)+yamlBlockDepth(s) > l.MaxDepth {
		return fmt.Errorf("the YAML nests more than %d levels deep, the limit (limits.hcl_max_depth)", l.MaxDepth)
	}
	return nil
}

// yamlBlockDepth bounds from above how deeply the block collections of a
// YAML document nest: a level deeper takes a line indented further, or
// one more "- " or ": " on the same line.
func yamlBlockDepth(s string) int {
	deepest := 0
	for line := range strings.Lines(s) {
		body := strings.TrimLeft(line, " ")
		depth := len(line) - len(body)
		depth += strings.Count(body, "- ") + strings.Count(body, ": ")
		deepest = max(deepest, depth)
	}
	return deepest
}
