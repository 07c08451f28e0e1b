// render: renders a Helm chart as `helm template` does, for the chart tests
// (no helm binary can be installed where ksched is built and tested).
//
// It uses the same template engine (Go text/template with sprig v3, from
// Debian's packages) and the same additions Helm's engine makes: include,
// tpl, required, fail, toYaml/fromYaml/toJson/fromJson (toYaml through
// ghodss/yaml, as Helm's sigs.k8s.io/yaml), missingkey=zero with
// "<no value>" removed, .Files (the chart's other files, as Helm's loader
// and engine give them), values merged over values.yaml and checked
// against values.schema.json, manifests split per document and sorted into
// Helm's install order. It also runs the checks of `helm lint` that apply:
// every document parses, and has apiVersion, kind and metadata.name.
//
// Usage: render [-f values.yaml]... [--name N] [--namespace NS] [--notes] CHART
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
	"github.com/xeipuuv/gojsonschema"
)

type valueFiles []string

func (v *valueFiles) String() string     { return strings.Join(*v, ",") }
func (v *valueFiles) Set(s string) error { *v = append(*v, s); return nil }

// Helm's InstallOrder (pkg/releaseutil/kind_sorter.go).
var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota",
	"LimitRange", "PodSecurityPolicy", "PodDisruptionBudget",
	"ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition",
	"ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
	"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding",
	"RoleBindingList", "Service", "DaemonSet", "Pod",
	"ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob",
	"IngressClass", "Ingress", "APIService",
}

type manifest struct {
	source string
	kind   string
	body   string
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "Error: "+format+"\n", args...)
	os.Exit(1)
}

func readYAMLMap(file string) map[string]interface{} {
	data, err := ioutil.ReadFile(file)
	if err != nil {
		fail("%v", err)
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		fail("%s: %v", file, err)
	}
	return out
}

// Helm's coalescing of user values over the chart's: maps merge key by
// key, anything else replaces, and null deletes the chart's key.
func mergeValues(dst, src map[string]interface{}) {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		if sm, ok := v.(map[string]interface{}); ok {
			if dm, ok := dst[k].(map[string]interface{}); ok {
				mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

// files is Helm's .Files (pkg/engine/files.go): the chart's files that
// are not templates, values, the schema, Chart.yaml or subcharts, by path
// relative to the chart (with "/"), with its methods.
type files map[string][]byte

func (f files) GetBytes(name string) []byte {
	if v, ok := f[name]; ok {
		return v
	}
	fmt.Fprintf(os.Stderr, "WARNING: %s not included\n", name)
	return nil
}

func (f files) Get(name string) string { return string(f.GetBytes(name)) }

func (f files) Glob(pattern string) files {
	re, err := globRegexp(pattern)
	if err != nil {
		re = regexp.MustCompile(`^.*$`) // Helm falls back to "**"
	}
	out := files{}
	for name, data := range f {
		if re.MatchString(name) {
			out[name] = data
		}
	}
	return out
}

func (f files) AsConfig() (string, error) {
	if len(f) == 0 {
		return "", errors.New("must pass files")
	}
	m := map[string]string{}
	for k, v := range f {
		m[path.Base(k)] = string(v)
	}
	return toYAML(m), nil
}

func (f files) AsSecrets() (string, error) {
	if len(f) == 0 {
		return "", errors.New("must pass files")
	}
	m := map[string]string{}
	for k, v := range f {
		m[path.Base(k)] = base64.StdEncoding.EncodeToString(v)
	}
	return toYAML(m), nil
}

func (f files) Lines(name string) ([]string, error) {
	if f == nil || f[name] == nil {
		return nil, errors.New("must pass files")
	}
	return strings.Split(string(f[name]), "\n"), nil
}

// globRegexp translates a glob as Helm's Glob compiles it (gobwas/glob
// with "/" as the separator): ** crosses "/", * and ? do not, [...] and
// [!...] are classes, {a,b} alternatives, \ escapes.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ in %q", pattern)
			}
			class := pattern[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += end + 1
		case c == '{':
			b.WriteString("(?:")
			depth++
		case c == '}' && depth > 0:
			b.WriteString(")")
			depth--
		case c == ',' && depth > 0:
			b.WriteString("|")
		case c == '\\' && i+1 < len(pattern):
			i++
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unclosed { in %q", pattern)
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// chartFiles loads .Files as Helm's directory loader and LoadFiles sort a
// chart's files. Helm also drops what .helmignore lists; this chart has
// none, and one would be refused here rather than ignored.
func chartFiles(chartDir string) files {
	out := files{}
	err := filepath.Walk(chartDir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(chartDir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			return nil
		}
		switch {
		case rel == ".helmignore":
			return errors.New(".helmignore is not supported by this renderer")
		case rel == "Chart.yaml", rel == "Chart.lock", rel == "values.yaml",
			rel == "values.schema.json", rel == "requirements.yaml",
			rel == "requirements.lock",
			strings.HasPrefix(rel, "templates/"),
			strings.HasPrefix(rel, "charts/") && path.Ext(rel) != ".prov":
			return nil
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("cannot load irregular file %s as it has file mode type bits set", rel)
		}
		data, err := ioutil.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = data
		return nil
	})
	if err != nil {
		fail("%v", err)
	}
	return out
}

func main() {
	var files valueFiles
	flag.Var(&files, "f", "values file (repeatable)")
	name := flag.String("name", "ksched", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	notes := flag.Bool("notes", false, "print NOTES.txt instead of the manifests")
	flag.Parse()
	if flag.NArg() != 1 {
		fail("usage: render [-f values.yaml]... [--name N] [--namespace NS] [--notes] CHART")
	}
	chartDir := flag.Arg(0)

	chart := readYAMLMap(filepath.Join(chartDir, "Chart.yaml"))
	if chart["apiVersion"] != "v2" {
		fail("Chart.yaml: apiVersion must be v2")
	}
	semver := regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	for _, key := range []string{"name", "version"} {
		if s, _ := chart[key].(string); s == "" {
			fail("Chart.yaml: %s is required", key)
		}
	}
	if !semver.MatchString(chart["version"].(string)) {
		fail("Chart.yaml: version %q is not a SemVer", chart["version"])
	}
	chartName := chart["name"].(string)
	absDir, err := filepath.Abs(chartDir)
	if err != nil {
		fail("%v", err)
	}
	if filepath.Base(absDir) != chartName {
		fail("chart directory name must equal the chart's name %q", chartName)
	}
	// .Chart has Helm's field names.
	chartObj := map[string]interface{}{}
	for k, v := range chart {
		chartObj[strings.ToUpper(k[:1])+k[1:]] = v
	}

	values := readYAMLMap(filepath.Join(chartDir, "values.yaml"))
	for _, f := range files {
		mergeValues(values, readYAMLMap(f))
	}
	if schema, err := ioutil.ReadFile(filepath.Join(chartDir, "values.schema.json")); err == nil {
		result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema),
			gojsonschema.NewGoLoader(values))
		if err != nil {
			fail("values.schema.json: %v", err)
		}
		if !result.Valid() {
			var msgs []string
			for _, e := range result.Errors() {
				msgs = append(msgs, "- "+e.String())
			}
			fail("values don't meet the specifications of the schema(s) in the following chart(s):\n%s:\n%s",
				chartName, strings.Join(msgs, "\n"))
		}
	}

	top := map[string]interface{}{
		"Values": values,
		"Chart":  chartObj,
		"Files":  chartFiles(chartDir),
		"Release": map[string]interface{}{
			"Name": *name, "Namespace": *namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{
				"Version": "v1.32.0", "Major": "1", "Minor": "32",
			},
		},
	}

	root := template.New("gotpl").Option("missingkey=zero")
	includedNames := map[string]int{}
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["toJson"] = func(v interface{}) string {
		data, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(data)
	}
	funcs["fromJson"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf strings.Builder
		if includedNames[name] > 1000 {
			return "", errors.New("rendering template has a nested reference name: " + name)
		}
		includedNames[name]++
		err := root.ExecuteTemplate(&buf, name, data)
		includedNames[name]--
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		if _, err := t.New("tpl").Parse(text); err != nil {
			return "", err
		}
		var buf strings.Builder
		err = t.ExecuteTemplate(&buf, "tpl", data)
		return buf.String(), err
	}
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return v, errors.New(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return v, errors.New(msg)
		}
		return v, nil
	}
	funcs["fail"] = func(msg string) (string, error) { return "", errors.New(msg) }
	funcs["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	root.Funcs(funcs)

	templatesDir := filepath.Join(chartDir, "templates")
	entries, err := ioutil.ReadDir(templatesDir)
	if err != nil {
		fail("%v", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := ioutil.ReadFile(filepath.Join(templatesDir, e.Name()))
		if err != nil {
			fail("%v", err)
		}
		tname := path.Join(chartName, "templates", e.Name())
		if _, err := root.New(tname).Parse(string(data)); err != nil {
			fail("parse error in %q: %v", tname, err)
		}
		names = append(names, tname)
	}
	sort.Strings(names)

	render := func(tname string) string {
		vals := map[string]interface{}{}
		for k, v := range top {
			vals[k] = v
		}
		vals["Template"] = map[string]interface{}{
			"Name": tname, "BasePath": path.Join(chartName, "templates"),
		}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, tname, vals); err != nil {
			fail("%v", err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", "")
	}

	if *notes {
		fmt.Print(render(path.Join(chartName, "templates", "NOTES.txt")))
		return
	}

	var manifests []manifest
	docSep := regexp.MustCompile(`(?m)^---\s*$`)
	for _, tname := range names {
		base := path.Base(tname)
		if strings.HasPrefix(base, "_") || base == "NOTES.txt" {
			continue
		}
		for _, doc := range docSep.Split(render(tname), -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var obj struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				fail("%s: unable to parse YAML: %v\n%s", tname, err, doc)
			}
			if obj.APIVersion == "" || obj.Kind == "" || obj.Metadata.Name == "" {
				fail("%s: every object needs apiVersion, kind and metadata.name", tname)
			}
			manifests = append(manifests, manifest{tname, obj.Kind, strings.Trim(doc, "\n")})
		}
	}
	rank := func(kind string) int {
		for i, k := range installOrder {
			if k == kind {
				return i
			}
		}
		return len(installOrder)
	}
	sort.SliceStable(manifests, func(i, j int) bool {
		ri, rj := rank(manifests[i].kind), rank(manifests[j].kind)
		if ri != rj {
			return ri < rj
		}
		if ri == len(installOrder) {
			return manifests[i].kind < manifests[j].kind
		}
		return false
	})
	for _, m := range manifests {
		fmt.Printf("---\n# Source: %s\n%s\n", m.source, m.body)
	}
}
