package nni.itest.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.Assume;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium from Debian ({@code chromium}, {@code chromium-driver}) driven by Selenium with
 * the system's chromedriver, set explicitly so that Selenium never fetches a driver or a browser.
 * Missing packages are installed when the tests run as root (as {@code .ci/run} does); otherwise
 * the test is skipped, saying why. Each browser gets a fresh profile folder, removed on close.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    /** Flags that keep Chromium off the (closed) network and quiet in a container. */
    private static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage", "--window-size=1440,1100");

    final WebDriver driver;
    private final Path profile;
    private final Path screenshots;

    private Browser(WebDriver driver, Path profile, Path screenshots) {
        this.driver = driver;
        this.profile = profile;
        this.screenshots = screenshots;
    }

    /** Starts a browser, or skips the calling test when Chromium cannot be had. */
    static Browser start(Path screenshots) throws IOException {
        String missing = unavailableReason();
        Assume.assumeTrue("no browser for the web UI tests: " + missing, missing == null);
        Path profile = Files.createTempDirectory("nni-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(FLAGS);
        options.addArguments("--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().withLogOutput(java.io.OutputStream.nullOutputStream()).build();
        Files.createDirectories(screenshots);
        return new Browser(new ChromeDriver(service, options), profile, screenshots);
    }

    /** @return null when Chromium and its driver are there (installing them as root when missing), else why not */
    static synchronized String unavailableReason() {
        if (Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER)) {
            return null;
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return CHROMIUM + " or " + DRIVER + " is missing and the tests do not run as root to install chromium and chromium-driver";
        }
        try {
            apt("update", "-qq");
            apt("install", "-y", "-qq", "chromium", "chromium-driver");
        } catch (IOException e) {
            return "cannot install chromium and chromium-driver: " + e.getMessage();
        }
        return Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER) ? null
                : CHROMIUM + " or " + DRIVER + " is still missing after installing chromium and chromium-driver";
    }

    private static void apt(String... arguments) throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
    }

    void open(String url) {
        driver.get(url);
    }

    <T> T waitFor(Function<WebDriver, T> condition) {
        return waitFor(Duration.ofSeconds(60), condition);
    }

    <T> T waitFor(Duration patience, Function<WebDriver, T> condition) {
        // a live page re-renders what it shows: an element read a moment ago may be gone, ask again
        return new WebDriverWait(driver, patience).pollingEvery(Duration.ofMillis(100))
                .ignoring(StaleElementReferenceException.class).until(condition);
    }

    /** Clicks the element, found again when the live page replaced it between the finding and the click. */
    void click(String css) {
        waitFor(d -> {
            find(css).click();
            return true;
        });
    }

    WebElement find(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    List<WebElement> findAll(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    /** @return the text of every element matching, read in one go (a live page cannot replace them meanwhile) */
    @SuppressWarnings("unchecked")
    List<String> texts(String css) {
        return (List<String>) script("return Array.from(document.querySelectorAll(arguments[0])).map(e => e.innerText.trim());", css);
    }

    /** @return an attribute of every element matching, read in one go */
    @SuppressWarnings("unchecked")
    List<String> attributes(String css, String name) {
        return (List<String>) script("return Array.from(document.querySelectorAll(arguments[0])).map(e => e.getAttribute(arguments[1]));",
                css, name);
    }

    /** @return the text of the element, or null while there is none */
    String text(String css) {
        List<WebElement> found = findAll(css);
        return found.isEmpty() ? null : found.get(0).getText();
    }

    Object script(String javascript, Object... arguments) {
        return ((JavascriptExecutor) driver).executeScript(javascript, arguments);
    }

    /** Writes what the page shows now to {@code <screenshots>/<name>.png}. */
    Path screenshot(String name) throws IOException {
        File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Path target = screenshots.resolve(name + ".png");
        Files.copy(shot.toPath(), target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.deleteIfExists(shot.toPath());
        return target;
    }

    @Override
    public void close() throws IOException {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
