package phoenixnap

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/phoenixnap/go-sdk-bmc/ipapi"

	"ccm-sandbox/go/internal/simcloudtest"
)

func ipTag(name, value string) ipapi.TagAssignmentRequest {
	return ipapi.TagAssignmentRequest{Name: name, Value: &value}
}

// An IP block as phoenixNAP's CCM makes one for a Service: a tagged /29, found again by its tags, the same
// simcloud IP block through /v1; its description and tags change; it is deleted.
func TestIPBlockAsTheCCMUsesIt(t *testing.T) {
	c := clients(t)
	svc := simcloudtest.UniqueName("svc")
	b := createBlock(t, c, "/29", ipTag("usage", "cloud-provider-phoenixnap-auto"), ipTag("serviceName", svc))
	if b.CidrBlockSize != "/29" || !strings.HasSuffix(b.Cidr, "/29") || b.Status != "unassigned" || b.Location != "sim-1" || b.IsBringYourOwn || b.CreatedOn.IsZero() {
		t.Fatalf("block %+v", b)
	}
	list, _, err := c.IP.IPBlocksApi.IpBlocksGet(ctx(t)).Tag([]string{"serviceName." + svc, "usage.cloud-provider-phoenixnap-auto"}).Execute()
	if err != nil || len(list) != 1 || list[0].Id != b.Id {
		t.Fatalf("by tags: %v %+v", err, list)
	}
	var v1 struct {
		IPBlock struct {
			Cidr string
			Tags map[string]string
		} `json:"ip_block"`
	}
	sim.Do(t, "GET", "/v1/ip_blocks/"+simID("ipb", b.Id), nil, &v1)
	if v1.IPBlock.Cidr != b.Cidr || v1.IPBlock.Tags["serviceName"] != svc {
		t.Fatalf("/v1 shows %+v", v1.IPBlock)
	}
	desc := "load balancer of " + svc
	got, _, err := c.IP.IPBlocksApi.IpBlocksIpBlockIdPatch(ctx(t), b.Id).IpBlockPatch(ipapi.IpBlockPatch{Description: &desc}).Execute()
	if err != nil || got.GetDescription() != desc {
		t.Fatalf("patch: %v %+v", err, got)
	}
	got, _, err = c.IP.IPBlocksApi.IpBlocksIpBlockIdTagsPut(ctx(t), b.Id).TagAssignmentRequest([]ipapi.TagAssignmentRequest{ipTag("usage", "other")}).Execute()
	if err != nil || len(got.Tags) != 1 || got.Tags[0].GetValue() != "other" {
		t.Fatalf("tags: %v %+v", err, got)
	}
	if got, _, err = c.IP.IPBlocksApi.IpBlocksIpBlockIdGet(ctx(t), b.Id).Execute(); err != nil || got.Id != b.Id || got.GetDescription() != desc {
		t.Fatalf("get: %v %+v", err, got)
	}
}

// phoenixNAP's lists are not paged (these APIs have no limit or offset): every block comes in one answer.
func TestIPBlockListIsOneAnswer(t *testing.T) {
	c := clients(t)
	batch := simcloudtest.UniqueName("batch")
	for range 30 {
		createBlock(t, c, "/30", ipTag("batch", batch))
	}
	list, _, err := c.IP.IPBlocksApi.IpBlocksGet(ctx(t)).Tag([]string{"batch." + batch}).Execute()
	if err != nil || len(list) != 30 {
		t.Fatalf("list: %v, %d blocks", err, len(list))
	}
}

// A size simcloud cannot carve is a 400 whose body the SDK decodes into ipapi.Error, naming the field.
func TestIPBlockBadSizeIsAValidationError(t *testing.T) {
	_, res, err := clients(t).IP.IPBlocksApi.IpBlocksPost(ctx(t)).IpBlockCreate(ipapi.IpBlockCreate{Location: "sim-1", CidrBlockSize: "/31"}).Execute()
	e := ipError(t, err)
	m, ok := e.Model().(ipapi.Error)
	if status(t, res) != http.StatusBadRequest || !ok || len(m.ValidationErrors) != 1 || !strings.HasPrefix(m.ValidationErrors[0], "cidrBlockSize: ") {
		t.Fatalf("%d %#v %s", res.StatusCode, e.Model(), e.Body())
	}
	_, res, err = clients(t).IP.IPBlocksApi.IpBlocksPost(ctx(t)).IpBlockCreate(ipapi.IpBlockCreate{Location: "nowhere", CidrBlockSize: "/29"}).Execute()
	var body ipapi.Error
	if e := ipError(t, err); status(t, res) != http.StatusBadRequest || json.Unmarshal(e.Body(), &body) != nil || !strings.Contains(body.Message, "unknown location nowhere") {
		t.Fatalf("%d %s", res.StatusCode, e.Body())
	}
}
