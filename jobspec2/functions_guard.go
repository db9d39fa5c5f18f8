package jobspec2

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// guardFunctions returns funcs with every function made to charge b: the
// size of its arguments before it runs, what it is about to build when
// that can be far more than its arguments (buildCosts), and the size of
// its result. A function called once the budget is spent returns an
// unknown value without running.
func guardFunctions(funcs map[string]function.Function, b *budget) map[string]function.Function {
	out := make(map[string]function.Function, len(funcs))
	for name, f := range funcs {
		out[name] = guardFunction(name, f, b)
	}
	return out
}

func guardFunction(name string, f function.Function, b *budget) function.Function {
	build := buildCosts[name]
	typeCheck := typeChecks[name]
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			if typeCheck != nil {
				if err := typeCheck(args, b.limits); err != nil {
					return cty.NilType, err
				}
			}
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
			for _, arg := range args {
				if !b.chargeValue(arg) {
					return cty.UnknownVal(retType), nil
				}
			}
			if build != nil {
				cost, err := build(args, b.limits)
				if err != nil {
					return cty.NilVal, err
				}
				if !b.charge(cost) {
					return cty.UnknownVal(retType), nil
				}
			}
			val, err := f.Call(args)
			if err != nil {
				return cty.NilVal, err
			}
			if !b.chargeValue(val) {
				return cty.UnknownVal(retType), nil
			}
			return val, nil
		},
	})
}

// buildCosts estimate, from its arguments, the work of a function whose
// result or running time can be far larger than its arguments, so that
// the work is refused before it is done. Others cost what they take and
// return.
var buildCosts = map[string]func(args []cty.Value, l Limits) (int64, error){
	"format":        formatCost,
	"formatlist":    formatListCost,
	"indent":        indentCost,
	"setproduct":    setProductCost,
	"replace":       replaceCost,
	"regex_replace": replaceCost,
	"regexall":      regexAllCost,
	"join":          joinCost,
	"distinct":      distinctCost,
	"parseint":      parseIntCost,
	"jsondecode":    jsonDecodeCost,
	"bcrypt":        bcryptCost,
	"rsadecrypt":    rsaDecryptCost,
}

// typeChecks run before a function's type is worked out, for functions
// whose type comes from reading their arguments: jsondecode parses its
// JSON there, recursively.
var typeChecks = map[string]func(args []cty.Value, l Limits) error{
	"jsondecode": func(args []cty.Value, l Limits) error {
		_, err := jsonDecodeCost(args, l)
		return err
	},
	"yamldecode": yamlDecodeCheck,
}

// costCap keeps estimates from overflowing: anything at or above it is
// more than any budget.
const costCap = math.MaxInt64 / 4

func mulCost(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > costCap/b {
		return costCap
	}
	return a * b
}

func knownString(v cty.Value) (string, bool) {
	v, _ = v.Unmark()
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

func knownLength(v cty.Value) int64 {
	v, _ = v.Unmark()
	if !v.IsKnown() || v.IsNull() || !v.CanIterateElements() {
		return 1
	}
	return int64(v.LengthInt())
}

// verbWidths sums the widths and precisions of a format string's verbs:
// "%9999999d" pads to that many characters.
func verbWidths(format string) int64 {
	var total int64
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		var n int64
		for i++; i < len(format); i++ {
			c := format[i]
			switch {
			case c >= '0' && c <= '9':
				n = min(n*10+int64(c-'0'), costCap)
				continue
			case c == '.' || c == '-' || c == '+' || c == '#' || c == ' ' || c == '[' || c == ']':
				total = min(total+n, costCap)
				n = 0
				continue
			}
			break
		}
		total = min(total+n, costCap)
	}
	return total
}

func formatCost(args []cty.Value, _ Limits) (int64, error) {
	format, _ := knownString(args[0])
	return verbWidths(format), nil
}

func formatListCost(args []cty.Value, _ Limits) (int64, error) {
	format, _ := knownString(args[0])
	n := int64(1)
	for _, arg := range args[1:] {
		if ty := arg.Type(); ty.IsListType() || ty.IsTupleType() || ty.IsSetType() {
			n = max(n, knownLength(arg))
		}
	}
	return mulCost(n, int64(len(format))+verbWidths(format)), nil
}

func indentCost(args []cty.Value, _ Limits) (int64, error) {
	spaces, _ := args[0].AsBigFloat().Int64()
	text, _ := knownString(args[1])
	if spaces < 0 {
		return 0, nil
	}
	return mulCost(spaces, int64(strings.Count(text, "\n"))+1), nil
}

func setProductCost(args []cty.Value, _ Limits) (int64, error) {
	product := int64(1)
	for _, arg := range args {
		product = mulCost(product, max(knownLength(arg), 1))
	}
	return mulCost(product, int64(len(args))), nil
}

// replaceCost bounds replace(str, substr, repl) and regex_replace(str,
// pattern, repl): at most one replacement per byte of str and one more,
// each as long as repl with every $ reference expanded to all of str.
func replaceCost(args []cty.Value, _ Limits) (int64, error) {
	str, _ := knownString(args[0])
	repl, _ := knownString(args[2])
	matches := int64(len(str)) + 1
	if sub, ok := knownString(args[1]); ok && sub != "" && !strings.HasPrefix(sub, "/") {
		matches = int64(strings.Count(str, sub))
	}
	each := int64(len(repl)) + mulCost(int64(strings.Count(repl, "$")), int64(len(str)))
	return mulCost(matches, each), nil
}

// regexAllCost bounds regexall(pattern, str): a match per byte of str and
// one more, each a list of its groups.
func regexAllCost(args []cty.Value, _ Limits) (int64, error) {
	pattern, _ := knownString(args[0])
	str, _ := knownString(args[1])
	re, err := regexp.Compile(pattern)
	if err != nil {
		return 0, nil // the function reports it
	}
	return mulCost(int64(len(str))+1, int64(re.NumSubexp())+1), nil
}

func joinCost(args []cty.Value, _ Limits) (int64, error) {
	sep, _ := knownString(args[0])
	var n int64
	for _, list := range args[1:] {
		n += knownLength(list)
	}
	return mulCost(n, int64(len(sep))), nil
}

// distinctCost: distinct compares every element with those kept so far.
func distinctCost(args []cty.Value, _ Limits) (int64, error) {
	n := knownLength(args[0])
	return mulCost(n, n) / 2, nil
}

// parseIntCost: reading a number of n digits takes time in n².
func parseIntCost(args []cty.Value, _ Limits) (int64, error) {
	s, _ := knownString(args[0])
	n := int64(len(s))
	return mulCost(n, n) / 64, nil
}

// jsonDecodeCost refuses JSON nested deeper than the limit: the decoder
// recurses once per level.
func jsonDecodeCost(args []cty.Value, l Limits) (int64, error) {
	s, _ := knownString(args[0])
	if depth := jsonDepth(s, l.MaxDepth); depth > l.MaxDepth {
		return 0, fmt.Errorf("the JSON nests more than %d levels deep, the limit (limits.hcl_max_depth)", l.MaxDepth)
	}
	return int64(len(s)), nil
}

// jsonDepth is how deeply the arrays and objects of JSON text nest, counted
// up to one more than limit. Brackets inside strings do not count.
func jsonDepth(s string, limit int) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(s) && deepest <= limit; i++ {
		c := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}
