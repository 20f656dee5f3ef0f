// Command oracle renders templates exactly as Argo CD's ApplicationSet controller does: Go's
// text/template with Sprig v3's generic function map minus env, expandenv and getHostByName, plus
// Argo's normalize, slugify, toYaml, fromYaml and fromYamlArray; or fasttemplate when goTemplate is
// false. It is the reference the TypeScript engine is compared against.
//
//	oracle render  < cases.json  > results.json   (cases: [{template, params, options, goTemplate}])
//	oracle bench   < bench.json                    (prints renders per second as JSON)
//	oracle durations < texts.json > results.json  (time.ParseDuration and Duration.String of each text)
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
	"github.com/gosimple/slug"
	"github.com/valyala/fasttemplate"
	"sigs.k8s.io/yaml"
)

type testCase struct {
	Template   string         `json:"template"`
	Params     map[string]any `json:"params"`
	Options    []string       `json:"options"`
	GoTemplate *bool          `json:"goTemplate"`
}

type result struct {
	Output *string `json:"output,omitempty"`
	Error  *string `json:"error,omitempty"`
}

var funcMap = argoFuncMap()

func argoFuncMap() template.FuncMap {
	m := sprig.GenericFuncMap()
	delete(m, "env")
	delete(m, "expandenv")
	delete(m, "getHostByName")
	m["normalize"] = sanitizeName
	m["slugify"] = slugifyName
	m["toYaml"] = toYAML
	m["fromYaml"] = fromYAML
	m["fromYamlArray"] = fromYAMLArray
	return m
}

var invalidDNSNameChars = regexp.MustCompile("[^-a-z0-9.]")

func sanitizeName(name string) string {
	name = strings.ToLower(name)
	name = invalidDNSNameChars.ReplaceAllString(name, "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

func slugifyName(args ...any) string {
	maxSize := 50
	smart := true
	name := ""
	for idx, arg := range args {
		switch idx {
		case len(args) - 1:
			name = arg.(string)
		case 0:
			maxSize = arg.(int)
		case 1:
			smart = arg.(bool)
		}
	}
	slug.EnableSmartTruncate = smart
	slug.MaxLength = maxSize
	return slug.Make(sanitizeName(name))
}

func toYAML(v any) (string, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func fromYAML(str string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(str), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func fromYAMLArray(str string) ([]any, error) {
	a := []any{}
	if err := yaml.Unmarshal([]byte(str), &a); err != nil {
		return nil, err
	}
	return a, nil
}

var isTemplated = regexp.MustCompile(".*{{.*}}.*")

// replace mirrors Argo CD's Render.Replace, turning a panic (an unknown option) into an error.
func replace(tmpl string, params map[string]any, goTemplate bool, options []string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	if !goTemplate {
		return fastReplace(tmpl, params)
	}
	t, err := template.New("base").Funcs(funcMap).Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("failed to parse template %s: %w", tmpl, err)
	}
	for _, o := range options {
		t = t.Option(o)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, params); err != nil {
		return "", fmt.Errorf("failed to execute go template %s: %w", tmpl, err)
	}
	return buf.String(), nil
}

func fastReplace(tmpl string, params map[string]any) (string, error) {
	if !isTemplated.MatchString(tmpl) {
		return tmpl, nil
	}
	ft, err := fasttemplate.NewTemplate(tmpl, "{{", "}}")
	if err != nil {
		return "", fmt.Errorf("invalid template: %w", err)
	}
	return ft.ExecuteFuncString(func(w io.Writer, tag string) (int, error) {
		trimmed := strings.TrimSpace(tag)
		v, ok := params[trimmed].(string)
		if len(trimmed) == 0 || !ok {
			return w.Write([]byte(fmt.Sprintf("{{%s}}", tag)))
		}
		return w.Write([]byte(v))
	}), nil
}

func render(cases []testCase) []result {
	out := make([]result, len(cases))
	for i, c := range cases {
		goTemplate := c.GoTemplate == nil || *c.GoTemplate
		s, err := replace(c.Template, c.Params, goTemplate, c.Options)
		if err != nil {
			msg := err.Error()
			out[i].Error = &msg
		} else {
			out[i].Output = &s
		}
	}
	return out
}

type benchInput struct {
	Fields     []string         `json:"fields"`
	Params     []map[string]any `json:"params"`
	Options    []string         `json:"options"`
	Iterations int              `json:"iterations"`
}

// bench renders every field for every param set: once as Argo does (parse per render), once with
// each field parsed a single time, and reports renders (one field, one param set) per second.
func bench(in benchInput) map[string]any {
	if in.Iterations <= 0 {
		in.Iterations = 1
	}
	renders := 0
	start := time.Now()
	for it := 0; it < in.Iterations; it++ {
		for _, p := range in.Params {
			for _, f := range in.Fields {
				if _, err := replace(f, p, true, in.Options); err != nil {
					return map[string]any{"error": err.Error()}
				}
				renders++
			}
		}
	}
	argoSecs := time.Since(start).Seconds()
	parsed := make([]*template.Template, len(in.Fields))
	for i, f := range in.Fields {
		parsed[i] = template.Must(template.New("base").Funcs(funcMap).Parse(f)).Option(in.Options...)
	}
	start = time.Now()
	var buf bytes.Buffer
	for it := 0; it < in.Iterations; it++ {
		for _, p := range in.Params {
			for _, t := range parsed {
				buf.Reset()
				if err := t.Execute(&buf, p); err != nil {
					return map[string]any{"error": err.Error()}
				}
			}
		}
	}
	cachedSecs := time.Since(start).Seconds()
	return map[string]any{
		"renders":             renders,
		"argoRendersPerSec":   float64(renders) / argoSecs,
		"cachedRendersPerSec": float64(renders) / cachedSecs,
	}
}

// durationResult is time.ParseDuration's answer for one text: the nanoseconds (as a decimal string,
// beyond float64's exact range) and their Duration.String, or the error.
type durationResult struct {
	Nanos  string `json:"nanos,omitempty"`
	String string `json:"string,omitempty"`
	Error  string `json:"error,omitempty"`
}

func durations(texts []string) []durationResult {
	out := make([]durationResult, len(texts))
	for i, text := range texts {
		d, err := time.ParseDuration(text)
		if err != nil {
			out[i] = durationResult{Error: err.Error()}
			continue
		}
		out[i] = durationResult{Nanos: fmt.Sprint(int64(d)), String: d.String()}
	}
	return out
}

func main() {
	mode := "render"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	var err error
	switch mode {
	case "render":
		var cases []testCase
		if err = dec.Decode(&cases); err == nil {
			err = enc.Encode(render(cases))
		}
	case "bench":
		var in benchInput
		if err = dec.Decode(&in); err == nil {
			err = enc.Encode(bench(in))
		}
	case "durations":
		var texts []string
		if err = dec.Decode(&texts); err == nil {
			err = enc.Encode(durations(texts))
		}
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
