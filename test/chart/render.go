// render: renders a Helm chart as `helm template` does, for the chart tests
// (no helm binary can be installed where ksched is built and tested).
//
// It uses the same template engine (Go text/template with sprig v3, from
// Debian's packages) and the same additions Helm's engine makes: include,
// tpl, required, fail, toYaml/fromYaml/toJson/fromJson (toYaml through
// ghodss/yaml, as Helm's sigs.k8s.io/yaml), missingkey=zero with
// "<no value>" removed, values merged over values.yaml and checked against
// values.schema.json, manifests split per document and sorted into Helm's
// install order. It also runs the checks of `helm lint` that apply: every
// document parses, and has apiVersion, kind and metadata.name.
//
// Usage: render [-f values.yaml]... [--name N] [--namespace NS] [--notes] CHART
package main

import (
	"bytes"
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
