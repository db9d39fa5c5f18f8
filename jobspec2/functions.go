package jobspec2

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"unicode/utf8"

	"github.com/hashicorp/go-cty-funcs/cidr"
	"github.com/hashicorp/go-cty-funcs/crypto"
	"github.com/hashicorp/go-cty-funcs/encoding"
	"github.com/hashicorp/go-cty-funcs/uuid"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	ctyyaml "github.com/zclconf/go-cty-yaml"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functionTable returns the functions a jobspec may call: Nomad's HCL2
// functions, taken from the libraries Nomad takes them from (go-cty's
// stdlib, go-cty-funcs, go-cty-yaml). The file functions work only when
// allowFS is set, and otherwise fail with an error that says so; they
// resolve relative paths against baseDir and read at most maxRead bytes
// of a file.
func functionTable(baseDir string, allowFS bool, maxRead int64) map[string]function.Function {
	funcs := map[string]function.Function{
		"abs":                    stdlib.AbsoluteFunc,
		"base64decode":           base64DecodeFunc,
		"base64encode":           base64EncodeFunc,
		"bcrypt":                 crypto.BcryptFunc,
		"can":                    tryfunc.CanFunc,
		"ceil":                   stdlib.CeilFunc,
		"chomp":                  stdlib.ChompFunc,
		"chunklist":              stdlib.ChunklistFunc,
		"cidrhost":               cidr.HostFunc,
		"cidrnetmask":            cidr.NetmaskFunc,
		"cidrsubnet":             cidr.SubnetFunc,
		"cidrsubnets":            cidr.SubnetsFunc,
		"coalesce":               stdlib.CoalesceFunc,
		"coalescelist":           stdlib.CoalesceListFunc,
		"compact":                stdlib.CompactFunc,
		"concat":                 stdlib.ConcatFunc,
		"contains":               stdlib.ContainsFunc,
		"convert":                typeexpr.ConvertFunc,
		"csvdecode":              stdlib.CSVDecodeFunc,
		"distinct":               stdlib.DistinctFunc,
		"element":                stdlib.ElementFunc,
		"flatten":                stdlib.FlattenFunc,
		"floor":                  stdlib.FloorFunc,
		"format":                 stdlib.FormatFunc,
		"formatdate":             stdlib.FormatDateFunc,
		"formatlist":             stdlib.FormatListFunc,
		"indent":                 stdlib.IndentFunc,
		"index":                  stdlib.IndexFunc,
		"join":                   stdlib.JoinFunc,
		"jsondecode":             stdlib.JSONDecodeFunc,
		"jsonencode":             stdlib.JSONEncodeFunc,
		"keys":                   stdlib.KeysFunc,
		"length":                 lengthFunc,
		"log":                    stdlib.LogFunc,
		"lookup":                 stdlib.LookupFunc,
		"lower":                  stdlib.LowerFunc,
		"max":                    stdlib.MaxFunc,
		"md5":                    crypto.Md5Func,
		"merge":                  stdlib.MergeFunc,
		"min":                    stdlib.MinFunc,
		"parseint":               stdlib.ParseIntFunc,
		"pow":                    stdlib.PowFunc,
		"range":                  stdlib.RangeFunc,
		"regex":                  stdlib.RegexFunc,
		"regex_replace":          stdlib.RegexReplaceFunc,
		"regexall":               stdlib.RegexAllFunc,
		"replace":                stdlib.ReplaceFunc,
		"reverse":                stdlib.ReverseListFunc,
		"rsadecrypt":             crypto.RsaDecryptFunc,
		"setintersection":        stdlib.SetIntersectionFunc,
		"setproduct":             stdlib.SetProductFunc,
		"setsubtract":            stdlib.SetSubtractFunc,
		"setsymmetricdifference": stdlib.SetSymmetricDifferenceFunc,
		"setunion":               stdlib.SetUnionFunc,
		"sha1":                   crypto.Sha1Func,
		"sha256":                 crypto.Sha256Func,
		"sha512":                 crypto.Sha512Func,
		"signum":                 stdlib.SignumFunc,
		"slice":                  stdlib.SliceFunc,
		"sort":                   stdlib.SortFunc,
		"split":                  stdlib.SplitFunc,
		"strlen":                 stdlib.StrlenFunc,
		"strrev":                 stdlib.ReverseFunc,
		"substr":                 stdlib.SubstrFunc,
		"timeadd":                stdlib.TimeAddFunc,
		"title":                  stdlib.TitleFunc,
		"tobool":                 stdlib.MakeToFunc(cty.Bool),
		"tolist":                 stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":                  stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber":               stdlib.MakeToFunc(cty.Number),
		"toset":                  stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring":               stdlib.MakeToFunc(cty.String),
		"trim":                   stdlib.TrimFunc,
		"trimprefix":             stdlib.TrimPrefixFunc,
		"trimspace":              stdlib.TrimSpaceFunc,
		"trimsuffix":             stdlib.TrimSuffixFunc,
		"try":                    tryfunc.TryFunc,
		"upper":                  stdlib.UpperFunc,
		"urlencode":              encoding.URLEncodeFunc,
		"uuidv4":                 uuid.V4Func,
		"uuidv5":                 uuid.V5Func,
		"values":                 stdlib.ValuesFunc,
		"yamldecode":             ctyyaml.YAMLDecodeFunc,
		"yamlencode":             ctyyaml.YAMLEncodeFunc,
		"zipmap":                 stdlib.ZipmapFunc,
	}
	if allowFS {
		maps.Copy(funcs, fileFunctions(baseDir, maxRead))
	} else {
		for name, f := range fileFunctions(baseDir, maxRead) {
			funcs[name] = withoutFS(name, f)
		}
	}
	return funcs
}

// lengthFunc counts the characters of a string or the elements of a
// collection, as jobspec authors know it from Nomad and Terraform.
var lengthFunc = function.New(&function.Spec{
	Description: "Returns the number of characters of a string or elements of a collection.",
	Params: []function.Parameter{{
		Name:             "value",
		Type:             cty.DynamicPseudoType,
		AllowDynamicType: true,
	}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty == cty.String, ty == cty.DynamicPseudoType,
			ty.IsListType(), ty.IsMapType(), ty.IsSetType(), ty.IsTupleType(), ty.IsObjectType():
			return cty.Number, nil
		}
		return cty.NilType, errors.New("argument must be a string, a collection or a structural value")
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if v.Type() == cty.String {
			return stdlib.Strlen(v)
		}
		return v.Length(), nil
	},
})

var base64EncodeFunc = function.New(&function.Spec{
	Description: "Encodes a string with standard Base64.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

var base64DecodeFunc = function.New(&function.Spec{
	Description: "Decodes a standard Base64 string that holds UTF-8 text.",
	Params:      []function.Parameter{{Name: "str", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		raw, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.NilVal, fmt.Errorf("decode base64: %w", err)
		}
		if !utf8.Valid(raw) {
			return cty.NilVal, errors.New("decoded base64 is not valid UTF-8 text")
		}
		return cty.StringVal(string(raw)), nil
	},
})
